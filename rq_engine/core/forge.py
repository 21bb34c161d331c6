"""Forge URLs: where a definition lives on GitHub, GitLab, Bitbucket or Gitea/Codeberg.

`rq --web` asks for one: the `origin` remote (ssh or https form, normalised by
core/identity.py) names the forge and the project, HEAD's commit (read from the
.git files: a fork of git costs ~3 ms) pins the version. Where no forge applies —
no git checkout, no `origin`, a local-path remote, a host no forge form is known
for, a HEAD with no commit — NoForge says why in one line (exit 64: the request
cannot be served here; unreadable .git files are OSError, 74). Stdlib only.
"""

from __future__ import annotations

import os
import re

from rq_engine.core.identity import common_dir, git_dir, normalize_remote

# The URL form of each forge, by name: (base, path, first line, last line) -> fragment.
_KNOWN_HOSTS = {
    "github.com": "github",
    "gitlab.com": "gitlab",
    "bitbucket.org": "bitbucket",
    "codeberg.org": "gitea",
    "gitea.com": "gitea",
}
# Self-hosted forges named after their software (gitlab.example.com, gitea.example.org).
_HOST_WORDS = (("gitlab", "gitlab"), ("gitea", "gitea"), ("forgejo", "gitea"), ("github", "github"))
_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


class NoForge(Exception):
    """No forge URL can be made here; the message says why (and names the host)."""


def forge_of(host: str) -> str | None:
    """`github`, `gitlab`, `bitbucket` or `gitea` for a remote's host, else None."""
    host = host.lower()
    if host in _KNOWN_HOSTS:
        return _KNOWN_HOSTS[host]
    labels = host.split(".")
    for word, forge in _HOST_WORDS:
        if word in labels[:-1]:  # gitlab.example.com, code.gitea.example.org
            return forge
    return None


def blob_url(remote: str, sha: str, path: str, line: int, end_line: int | None) -> str:
    """The forge URL of lines `line`..`end_line` of `path` at commit `sha`, from a
    remote URL (`git@host:o/r.git`, `ssh://…`, `https://…`). Raises NoForge."""
    ident = normalize_remote(remote)
    if ident is None:
        raise NoForge(f"the origin remote {remote!r} is a local path, not a forge")
    host, _, project = ident.partition("/")
    forge = forge_of(host)
    if forge is None:
        raise NoForge(
            f"no forge URL form is known for host {host!r}"
            " (GitHub, GitLab, Bitbucket, Gitea/Codeberg)"
        )
    from urllib.parse import quote  # deferred: only --web needs it

    base = f"https://{host}/{quote(project, safe='/')}"
    qpath = quote(path, safe="/")
    end = end_line if end_line is not None and end_line > line else None
    if forge == "github":
        return f"{base}/blob/{sha}/{qpath}#L{line}" + (f"-L{end}" if end else "")
    if forge == "gitlab":
        return f"{base}/-/blob/{sha}/{qpath}#L{line}" + (f"-{end}" if end else "")
    if forge == "bitbucket":
        return f"{base}/src/{sha}/{qpath}#lines-{line}" + (f":{end}" if end else "")
    return f"{base}/src/commit/{sha}/{qpath}#L{line}" + (f"-L{end}" if end else "")


def origin_url(common: str) -> str | None:
    """The `url` of `[remote "origin"]` in the repository's config, or None."""
    import configparser  # deferred: ~1 ms, only --web reads the config

    cfg = configparser.RawConfigParser(strict=False)
    try:
        cfg.read(os.path.join(common, "config"), encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return None
    section = 'remote "origin"'
    if cfg.has_section(section) and cfg.has_option(section, "url"):
        return cfg.get(section, "url").strip().strip('"')
    return None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except FileNotFoundError:
        return None


def head_commit(gd: str) -> str | None:
    """HEAD's commit sha from the .git files (loose ref, then packed-refs), None when
    HEAD names a branch with no commit yet. OSError when a file cannot be read."""
    head = _read(os.path.join(gd, "HEAD")) or ""
    if _SHA.match(head):
        return head  # detached
    if not head.startswith("ref: "):
        return None
    ref = head[len("ref: ") :].strip()
    common = common_dir(gd)
    for where in dict.fromkeys((gd, common)):  # a worktree's own refs, then the shared ones
        sha = _read(os.path.join(where, *ref.split("/")))
        if sha and _SHA.match(sha):
            return sha
    packed = _read(os.path.join(common, "packed-refs")) or ""
    for row in packed.splitlines():
        sha, _, name = row.partition(" ")
        if name == ref and _SHA.match(sha):
            return sha
    return None


def web_url(root: str, path: str, line: int, end_line: int | None) -> str:
    """The forge URL of `path` (relative to the checkout `root`) at HEAD. Raises NoForge."""
    gd = git_dir(root)
    if gd is None:
        raise NoForge(f"{root} is not a git checkout: no forge URL")
    remote = origin_url(common_dir(gd))
    if remote is None:
        raise NoForge(f"no origin remote in {root}: no forge URL")
    sha = head_commit(gd)
    if sha is None:
        raise NoForge(f"HEAD has no commit yet in {root}: no forge URL")
    return blob_url(remote, sha, path, line, end_line)
