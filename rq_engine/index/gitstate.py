"""What git says about a work tree: the native stamp (no fork), and the few questions that fork git.

The stamp — HEAD's commit and `.git/index`'s mtime — is read natively (a few
small reads and a stat, ~50 µs), because the search hot path compares it with
the last verdict and must not fork. Staging, commits, checkouts and pulls change
it; an unstaged edit does not (D16). The forking questions — `status`, what
changed between two commits, the files a feature branch touched, recent commit
times — run only when a warm or a miss needs them, each bounded by a timeout;
a git that fails or hangs answers None and the caller falls back to a stat walk.

Stdlib + rq_engine.core only.
"""

from __future__ import annotations

import os

from rq_engine.core.identity import common_dir
from rq_engine.core.record import Record

# Paths are str or os.PathLike: the stamp runs on the search hot path, where
# pathlib (~5 ms to import) is not loaded.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.index.gitrun import Running

    StrPath = str | os.PathLike[str]

# A forked question gives up after this long (s): the caller then walks and stats.
GIT_TIMEOUT = 20.0

# Commit times older than this add nothing to recency (14-day half-life: 2^-6 at 84 days),
# so `git log` reads only this far back however long the history is.
COMMIT_WINDOW_DAYS = 90
# Where a repository's trunk may be, in order (the remote's HEAD first).
TRUNKS = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "refs/heads/trunk")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def resolve_ref(git_dir: StrPath, ref: str) -> str | None:
    """The commit a ref names (loose file in the worktree's or the common dir, else packed)."""
    gd = os.fspath(git_dir)
    common = common_dir(gd)
    for base in (gd, common) if common != gd else (gd,):
        text = _read(os.path.join(base, ref))
        if text is not None:
            if text.startswith("ref: "):
                return resolve_ref(git_dir, text[5:].strip())
            return text or None
    packed = _read(os.path.join(common, "packed-refs"))
    if packed:
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name == ref:
                return sha
    return None


def head(git_dir: StrPath | None) -> str | None:
    """HEAD's commit, or None (not a git checkout, or no commit yet)."""
    if git_dir is None:
        return None
    text = _read(os.path.join(git_dir, "HEAD"))
    if not text:
        return None
    if text.startswith("ref: "):
        return resolve_ref(git_dir, text[5:].strip())
    return text


def stamp(git_dir: StrPath | None) -> str:
    """HEAD commit + `.git/index` mtime (ns): what staging, commits, checkouts change.
    "" outside git (only the recheck window then bounds a verdict)."""
    if git_dir is None:
        return ""
    try:
        mtime = os.stat(os.path.join(git_dir, "index")).st_mtime_ns
    except OSError:
        mtime = 0
    return f"{head(git_dir) or '-'}:{mtime}"


class Status(Record):
    """`git status`: paths (repo-relative) with uncommitted content, and paths gone."""

    __slots__ = ("dirty", "deleted")
    dirty: list[str]  # modified, added, untracked, renamed or copied to
    deleted: list[str]  # deleted, renamed away

    def __init__(self, dirty: list[str], deleted: list[str]) -> None:
        self.dirty = dirty
        self.deleted = deleted


_STATUS = (
    "--no-optional-locks",
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=all",
)


def status(root: StrPath, timeout: float = GIT_TIMEOUT, *, untracked: bool = True) -> Status | None:
    """One `git status` (never writing the index: --no-optional-locks keeps the stamp
    still), or None when git fails. Without `untracked`, git skips reading every
    directory for new files: ~10 ms instead of ~30 ms on Django (fresh.check decides
    when that is safe)."""
    from rq_engine.index.gitrun import git

    out = git(root, *_status_args(untracked), timeout=timeout)
    return None if out is None else parse_status(out)


def start_status(
    root: StrPath,
    *,
    untracked: bool = True,
    pathspec: tuple[str, ...] = (),
    threads: bool = True,
) -> Running | None:
    """`status` started, to collect with `finish_status` (work meanwhile). `pathspec`
    limits it to the paths that match (git then stats only those files). Without
    `threads`, git lstats the files on one thread (core.preloadIndex off), leaving
    the other cores to the caller's own work meanwhile (fresh.check)."""
    from rq_engine.index.gitrun import Running

    args = _status_args(untracked)
    if pathspec:
        args = (*args, "--", *pathspec)
    return Running.start(root, args if threads else ("-c", "core.preloadIndex=false", *args))


def index_entries(git_dir: StrPath) -> int:
    """How many entries git's index holds (its header; 0 when unreadable)."""
    try:
        with open(os.path.join(git_dir, "index"), "rb") as f:
            head = f.read(12)
    except OSError:
        return 0
    return int.from_bytes(head[8:12], "big") if head[:4] == b"DIRC" else 0


def finish_status(running: Running | None, timeout: float = GIT_TIMEOUT) -> Status | None:
    out = None if running is None else running.result(timeout)
    return None if out is None else parse_status(out)


def _status_args(untracked: bool) -> tuple[str, ...]:
    return _STATUS if untracked else (*_STATUS[:-2], "--untracked-files=no", _STATUS[-1])


def start_listing(root: StrPath) -> Running | None:
    """`git ls-files -z` started: every path the index tracks, NUL-separated (collect
    with `Running.result`)."""
    from rq_engine.index.gitrun import Running

    return Running.start(root, ("ls-files", "-z"))


def ignored(root: StrPath, paths: list[str], timeout: float = GIT_TIMEOUT) -> set[str] | None:
    """Which of `paths` (repo-relative) git ignores — .gitignore files, info/exclude,
    core.excludesFile, or an ignored directory above — or None when git fails. One
    `git check-ignore`; asked only about directories a listing did not show."""
    import subprocess  # (~4 ms: only a directory record that found unknown directories asks)

    from rq_engine.index.gitrun import env

    cmd = ["git", "-C", os.fspath(root), "-c", "core.quotePath=false", "check-ignore"]
    try:
        done = subprocess.run(
            [*cmd, "-z", "--stdin"],
            input=b"".join(os.fsencode(p) + b"\0" for p in paths),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env(),
            timeout=timeout,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):  # 1: none of them is ignored
        return None
    return {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}


def parse_status(out: bytes) -> Status:
    """`git status --porcelain -z` entries: the paths present and changed (`dirty`:
    added, modified, the new side of a rename or copy) and the paths gone."""
    dirty: list[str] = []
    deleted: list[str] = []
    parts = out.split(b"\0")
    i = 0
    while i < len(parts):
        entry = parts[i]
        i += 1
        if len(entry) < 4:
            continue
        xy, path = entry[:2].decode("ascii", "replace"), os.fsdecode(entry[3:])
        if xy[0] in "RC":  # the source path follows as its own field
            if xy[0] == "R" and i < len(parts):
                deleted.append(os.fsdecode(parts[i]))
            i += 1
        if "D" in xy and xy[0] not in "RC":
            deleted.append(path)
        else:
            dirty.append(path)
    return Status(dirty, deleted)


def changed_between(root: StrPath, old: str, new: str) -> list[str] | None:
    """Paths that differ between two commits (both sides of a rename), or None."""
    from rq_engine.index.gitrun import git

    out = git(root, "diff", "--name-only", "-z", "--no-renames", old, new)
    if out is None:
        return None
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def trunk(git_dir: StrPath) -> tuple[str, str] | None:
    """(ref, short name) of the repository's trunk, or None when it has none we know."""
    for ref in TRUNKS:
        sha = resolve_ref(git_dir, ref)
        if sha:
            if ref.endswith("/HEAD"):
                gd = os.fspath(git_dir)
                target = _read(os.path.join(gd, ref)) or _read(os.path.join(common_dir(gd), ref))
                target = target or ""
                name = target.removeprefix("ref: ").rsplit("/", 1)[-1] or "HEAD"
                return ref, name
            return ref, ref.rsplit("/", 1)[-1]
    return None


def branch_files(
    root: StrPath, git_dir: StrPath | None, branch: str | None, timeout: float = GIT_TIMEOUT
) -> list[str]:
    """On a feature branch: files that differ from the trunk since the branch left it
    (committed and uncommitted). The trunk itself, a detached HEAD or a repository
    without a trunk: none (the trunk pays nothing)."""
    from rq_engine.index.gitrun import git

    if git_dir is None or branch is None:
        return []
    t = trunk(git_dir)
    if t is None or t[1] == branch:
        return []
    base = git(root, "merge-base", "HEAD", t[0], timeout=timeout)
    if not base:
        return []
    out = git(
        root, "diff", "--name-only", "-z", "--no-renames", base.decode().strip(), timeout=timeout
    )
    return [os.fsdecode(p) for p in (out or b"").split(b"\0") if p]


def _log_args(days: int) -> tuple[str, ...]:
    return ("log", f"--since={days}.days", "--format=%x01%ct", "--name-only", "-z")


def start_commit_times(root: StrPath, days: int = COMMIT_WINDOW_DAYS) -> Running | None:
    """commit_times's `git log`, started now so it runs beside a pass (`rq --index`
    hands it to fresh.settle, which asks for the times only after the last commit:
    there it was ~3 ms of process start on laravel's one commit, and a `git log
    --name-only` over a busy repository's 90 days costs tens of ms more)."""
    from rq_engine.index.gitrun import Running

    return Running.start(root, _log_args(days))


def commit_times(
    root: StrPath, days: int = COMMIT_WINDOW_DAYS, running: Running | None = None
) -> dict[str, int]:
    """path -> the unix time of the newest commit touching it, over the last `days`
    (read from `running`, start_commit_times's, when given)."""
    from rq_engine.index.gitrun import git

    out = running.result() if running is not None else git(root, *_log_args(days))
    # `\x01<time>\0` then `\n<path>\0<path>\0…` per commit: a path holds any byte but
    # NUL (`new\nline.py`), and only the first after a header has the `\n` before it
    times: dict[str, int] = {}
    when = 0
    after_header = False
    for field in (out or b"").split(b"\0"):
        if field.startswith(b"\x01"):
            try:
                when = int(field[1:])
            except ValueError:
                when = 0
            after_header = True
            continue
        if after_header and field.startswith(b"\n"):
            field = field[1:]
        after_header = False
        if not field or not when:
            continue
        try:
            path = field.decode("utf-8")
        except UnicodeDecodeError:
            continue  # a name the index cannot hold (batch.collect fails it) has no row
        times.setdefault(path, when)  # newest first: keep the first
    return times
