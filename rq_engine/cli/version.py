"""`rq --version`: the version, the git commit rq runs from, and the index schema.

The commit is read, never asked of git (a fork of git costs ~2 ms and git may
be absent): from the checkout rq_engine sits in (an editable install, `make
run`), else from `_build_commit`, which setup.py writes into a built package
(`make install`, a wheel). Neither: "unknown". Not on the query path.
"""

from __future__ import annotations

import os

BUILD_FILE = "_build_commit"  # beside this package's __init__.py, written by setup.py
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # rq_engine/


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def _git_dir(checkout: str) -> str | None:
    """The git directory of `checkout`: `.git`, or where a `.git` file (a worktree) points."""
    dot = os.path.join(checkout, ".git")
    if os.path.isdir(dot):
        return dot
    text = _read(dot)
    if text and text.startswith("gitdir:"):
        return os.path.normpath(os.path.join(checkout, text[len("gitdir:") :].strip()))
    return None


def checkout_commit(checkout: str) -> str | None:
    """HEAD's commit in the git checkout at `checkout`, read from its files (loose or
    packed ref, a detached HEAD, a linked worktree); None when it is not one."""
    git_dir = _git_dir(checkout)
    if git_dir is None:
        return None
    head = _read(os.path.join(git_dir, "HEAD"))
    if not head:
        return None
    if not head.startswith("ref:"):
        return head or None  # detached
    ref = head[len("ref:") :].strip()
    common = _read(os.path.join(git_dir, "commondir"))
    dirs = [git_dir] + ([os.path.normpath(os.path.join(git_dir, common))] if common else [])
    for d in dirs:
        sha = _read(os.path.join(d, ref))
        if sha:
            return sha
    for d in dirs:
        packed = _read(os.path.join(d, "packed-refs")) or ""
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name == ref:
                return sha
    return None  # a branch with no commit yet


def commit() -> str:
    """The commit rq runs from (its checkout's HEAD, else the build's), or "unknown"."""
    found = checkout_commit(os.path.dirname(HERE))
    if found is None:
        found = _read(os.path.join(HERE, BUILD_FILE))
    return found or "unknown"


def describe() -> str:
    """The three lines of `rq --version` (the first, `rq X.Y.Z`, as diagnostics name rq)."""
    from rq_engine import __version__
    from rq_engine.store.schema import latest

    return f"rq {__version__}\ncommit {commit()}\nindex schema {latest()}"
