"""Repository identity at two levels: the logical project and the local checkout.

Reads `.git` natively (no `git` fork): identity is asked on every search, so it
must cost a few stat/read calls, not a process (~3 ms per fork of git). The
search hot path uses the str forms (`git_root`, `git_dir`): pathlib costs ~5 ms
to import (it pulls in urllib.parse and ipaddress), a tenth of a search's budget.
"""

from __future__ import annotations

import os

from rq_engine.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# (matched with re, imported where a remote is read: only a never-seen checkout's)
_SCP_LIKE = r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!/).+)$"


class Checkout(Record):
    """A local clone: where it is, which project it is, and what branch it is on."""

    __slots__ = ("root", "identity", "branch", "git_dir")
    root: Path
    identity: str  # host/org/repo, or local:/abs/path
    branch: str | None
    git_dir: Path | None  # None for a non-git directory

    def __init__(self, root: Path, identity: str, branch: str | None, git_dir: Path | None) -> None:
        self.root = root
        self.identity = identity
        self.branch = branch
        self.git_dir = git_dir


def git_root(start: str) -> str | None:
    """The nearest ancestor of `start` (itself included, symlinks resolved) that holds a
    `.git` entry, as a str."""
    d = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def find_git_root(start: Path) -> Path | None:
    """The nearest ancestor of `start` (itself included) that holds a `.git` entry."""
    from pathlib import Path

    root = git_root(str(start))
    return Path(root) if root is not None else None


def git_dir(root: str) -> str | None:
    """The git directory of a work tree root, as a str; follows `gitdir:` files
    (worktrees, submodules)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    if os.path.isfile(dot):
        try:
            with open(dot, encoding="utf-8", errors="replace") as f:
                text = f.read().strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = text[len("gitdir:") :].strip()
            if os.path.isabs(target):
                return target
            return os.path.realpath(os.path.join(root, target))
    return None


def git_dir_of(root: Path) -> Path | None:
    """The git directory of a work tree root; follows `gitdir:` files (worktrees, submodules)."""
    from pathlib import Path

    gd = git_dir(str(root))
    return Path(gd) if gd is not None else None


def common_dir(git_dir: str) -> str:
    """Linked worktrees keep config and refs in the common dir named by `commondir`."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as f:
            rel = f.read().strip()
    except OSError:
        return git_dir
    return os.path.realpath(os.path.join(git_dir, rel))


def common_dir_of(git_dir: Path) -> Path:
    """common_dir for a Path."""
    from pathlib import Path

    return Path(common_dir(str(git_dir)))


def normalize_remote(url: str) -> str | None:
    """`git@github.com:Org/Repo.git`, `ssh://…`, `https://…` → `github.com/Org/Repo`.

    Host is lower-cased (DNS is case-insensitive); the path keeps its case, since
    some hosts treat it as significant. Local-path remotes give None.
    """
    import re  # (re: ~3 ms to import; `rq -q` on a known checkout never gets here)

    url = url.strip()
    if not url:
        return None
    m = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://(?P<rest>.*)$", url)
    if m:
        if url.startswith("file://"):
            return None
        rest = m.group("rest")
        hostpart, _, path = rest.partition("/")
        host = hostpart.rsplit("@", 1)[-1]
        host = re.sub(r":\d+$", "", host)
    else:
        sm = re.match(_SCP_LIKE, url)
        if not sm or "/" in sm.group("host"):
            return None
        host, path = sm.group("host"), sm.group("path")
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    if not host or not path:
        return None
    return f"{host.lower()}/{path}"


def _remote_urls(common: Path) -> dict[str, str]:
    import configparser  # deferred: ~1 ms, and only a never-seen checkout needs it
    import re

    cfg = configparser.RawConfigParser(strict=False)
    try:
        cfg.read(common / "config", encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return {}
    urls: dict[str, str] = {}
    for section in cfg.sections():
        m = re.match(r'^remote\s+"(?P<name>[^"]+)"$', section)
        if m and cfg.has_option(section, "url"):
            urls[m.group("name")] = cfg.get(section, "url")
    return urls


def project_identity(root: Path, git_dir: Path | None) -> str:
    """The logical project: the upstream remote when there is one, else `local:/abs/path`.

    `upstream` wins over `origin` (a fork's upstream names the shared project),
    then `origin`, then the alphabetically first remote.
    """
    if git_dir is not None:
        urls = _remote_urls(common_dir_of(git_dir))
        for name in ("upstream", "origin", *sorted(urls)):
            if name in urls:
                ident = normalize_remote(urls[name])
                if ident:
                    return ident
    return f"local:{root.resolve()}"


def current_branch(git_dir: str | os.PathLike[str] | None) -> str | None:
    """The checked-out branch name, or None when detached or not a git checkout."""
    if git_dir is None:
        return None
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8") as f:
            head = f.read().strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/") :]
    return None


def checkout_for(path: str | os.PathLike[str]) -> Checkout:
    """The checkout holding `path`: the enclosing git work tree, else the directory itself."""
    from pathlib import Path

    path = Path(os.path.abspath(path))
    root = find_git_root(path)
    if root is None:
        root = path.resolve()
        return Checkout(root=root, identity=f"local:{root}", branch=None, git_dir=None)
    gd = git_dir_of(root)
    return Checkout(
        root=root, identity=project_identity(root, gd), branch=current_branch(gd), git_dir=gd
    )
