"""The directory record (D33): every directory git lists files in, with its ctime,
and the directories below them that no listed file shows — so a miss's check
knows without git's untracked scan that no file was added, deleted or renamed.

A directory's ctime, not its mtime: adding a file sets both, but `touch -d`,
`tar -x` and `cp -a` put an mtime back (a new file then left no trace), and
nothing but the clock sets a ctime. The record also holds the files whose
rules decide what git lists — every `.gitignore` and the repository's
`info/exclude` (by absolute path) — whose edit in place changes no directory,
yet makes a file appear in git's listing or leave it.

Stdlib, rq_engine.core and rq_engine.index.gitstate only (on a miss's path).
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Iterable

from rq_engine.core.identity import common_dir
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import gitstate

DIRS = "dirc:"  # + checkout root -> marshal of {dir or rule file: ctime ns}: every directory git lists files in
# An older rq's record (mtimes, no rule files): never read — a directory's ctime is
# its mtime until something sets the mtime back, so it would pass as new and never
# gain its rule files — and removed when the new one is written.
OLD_DIRS = "dirs:"
# + checkout root -> the directories git ignores below the record's, "\0"-joined (kept
# apart so the record holds only what a check compares, as rq before them expected)
IGNORED_DIRS = "ignored:"
IGNORED = -1  # a directory's ctime in what dir_keys returns when git ignores it
#: a file of ignore rules inside the work tree (the record holds each one, as a file)
IGNORE_FILE = ".gitignore"


def rule_files(paths: Iterable[str], git_dir: str | os.PathLike[str] | None) -> list[str]:
    """The files of `paths` (a listing) whose rules decide what git lists, and the
    repository's `info/exclude` by absolute path: what dir_keys records as files."""
    out = [p for p in paths if p.rpartition("/")[2] == IGNORE_FILE]
    if git_dir is not None:
        # (a linked worktree's git dir has none: git reads its common dir's)
        exclude = os.path.join(common_dir(os.fspath(git_dir)), "info", "exclude")
        if os.path.isfile(exclude):
            out.append(exclude)
    return out


def _is_rule_file(key: str) -> bool:
    return os.path.isabs(key) or key.rpartition("/")[2] == IGNORE_FILE


def dirs_of(paths: Iterable[str]) -> set[str]:
    """Every directory (repo-relative, "" the root) that holds one of `paths`."""
    out = {""}
    for p in paths:
        d = p.rpartition("/")[0]
        while d not in out:
            out.add(d)
            d = d.rpartition("/")[0]
    return out


def dir_keys(
    root: str | os.PathLike[str],
    dirs: Iterable[str],
    since_ns: int,
    ignored: Iterable[str] = (),
    files: Iterable[str] = (),
) -> dict[str, int]:
    """The directory record: each of `dirs` with its ctime (ns), 0 for one that changed
    after `since_ns` (while the caller listed or checked: the next check cannot trust
    it) — and the directories below them that no listed file shows. A file made later
    in one of those changes only its ctime, so each is recorded too: IGNORED when git
    ignores it (or it is another repository: nothing there is ever listed), else with
    its ctime (an empty directory, one of ignored files, one a checkout brought).
    `ignored`: directories an earlier record found ignored (not asked again). `files`
    (rule_files), and the rule files among `dirs` (an earlier record's), are recorded
    with their ctimes too, as they are: nothing below them to read.

    A directory's link count is 2 + its subdirectories (ext4, xfs, tmpfs), so only one
    with more than the record knows is read (other file systems: every one is read)."""
    base = os.fspath(root)
    listed = set(dirs)
    rules = {d for d in listed if _is_rule_file(d)} | set(files)
    dirs = listed - rules
    out = {d: IGNORED for d in ignored if os.path.lexists(os.path.join(base, d))}
    out.update((d, IGNORED) for d in dirs if d.rpartition("/")[2] == ".git")  # git's own
    watched = {d for d in dirs if d not in out}
    known = {*watched, *out}
    subdirs: dict[str, int] = {}
    for d in known:
        if d:
            parent = d.rpartition("/")[0]
            subdirs[parent] = subdirs.get(parent, 0) + 1
    unread: list[str] = []
    for d in watched:
        try:
            st = os.stat(os.path.join(base, d) if d else base)
        except OSError:
            continue
        out[d] = st.st_ctime_ns if st.st_ctime_ns < since_ns else 0
        if st.st_nlink < 2 or st.st_nlink - 2 > subdirs.get(d, 0):
            unread.append(d)
    for f in rules:
        try:
            c = os.stat(os.path.join(base, f)).st_ctime_ns
        except OSError:
            continue  # gone: its directory's ctime says so
        out[f] = c if c < since_ns else 0
    # level by level, so a directory git ignores is never entered
    level = _unknown_subdirs(base, unread, known)
    while level:
        repos = {d for d in level if _other_repo(base, d)}
        asked = [d for d in level if d not in repos]
        said = gitstate.ignored(base, asked) if asked else set()
        below = []
        for d in level:
            if d in repos or (said is not None and d in said):
                out[d] = IGNORED
                continue
            try:
                m = os.stat(os.path.join(base, d)).st_ctime_ns
            except OSError:
                continue
            out[d] = m if m < since_ns else 0
            below.append(d)
        # git failed: record this level as it is, and find what is below next time
        level = _unknown_subdirs(base, below, known) if said is not None else []
    return out


def _unknown_subdirs(base: str, dirs: list[str], known: set[str]) -> list[str]:
    """The subdirectories of `dirs` not in `known` (symbolic links are not directories)."""
    found: list[str] = []
    for d in dirs:
        try:
            with os.scandir(os.path.join(base, d) if d else base) as entries:
                for e in entries:
                    rel = f"{d}/{e.name}" if d else e.name
                    if rel not in known and e.is_dir(follow_symlinks=False):
                        known.add(rel)
                        found.append(rel)
        except OSError:
            continue
    return found


def _other_repo(base: str, d: str) -> bool:
    """`.git` itself, or a directory holding one (a nested repository or a submodule)."""
    return d.rpartition("/")[2] == ".git" or os.path.lexists(os.path.join(base, d, ".git"))


def _dirs(conn: sqlite3.Connection, root: str) -> dict[str, int]:
    # marshal (built in, ~0.3 ms for Django's 3,500 directories; parsing text took ~3)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (DIRS + root,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return {}
    try:
        val = marshal.loads(row[0])
    except (ValueError, EOFError, TypeError):
        return {}
    return val if isinstance(val, dict) else {}


def has_dirs(conn: sqlite3.Connection, root: str) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (DIRS + root,)).fetchone() is not None


def _put_dirs(conn: sqlite3.Connection, root: str, dirs: dict[str, int]) -> None:
    blob = marshal.dumps({d: m for d, m in dirs.items() if m != IGNORED})
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (DIRS + root, blob))
    conn.execute("DELETE FROM meta WHERE key = ?", (OLD_DIRS + root,))
    ignored = "\0".join(sorted(d for d, m in dirs.items() if m == IGNORED))
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (IGNORED_DIRS + root, ignored)
    )


def _ignored_dirs(conn: sqlite3.Connection, root: str) -> set[str]:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (IGNORED_DIRS + root,)).fetchone()
    return set(str(row[0]).split("\0")) - {""} if row else set()


def rules_moved(root: str, dirs: dict[str, int]) -> bool:
    """Whether a rule file of the record (`.gitignore`, `info/exclude`) changed or went:
    what git lists may then differ with no file changing (a newly ignored file is
    simply no longer listed), which only a walk settles."""
    for key, c in dirs.items():
        if _is_rule_file(key):
            try:
                if os.stat(os.path.join(root, key)).st_ctime_ns != c:
                    return True
            except OSError:
                return True
    return False


def _same_dirs(root: str, dirs: dict[str, int]) -> bool:
    """No directory git would look in gained or lost an entry since it was recorded,
    and no rule file changed: then no file was added, deleted or renamed, nor came
    into or left git's listing (an edit in place leaves its directory alone, and
    `git status` without untracked files still sees it). ~1.5 µs a directory:
    relative to the root's descriptor, the kernel walks fewer names (an absolute
    key, `info/exclude`, is stat'ed as it is)."""
    stat = os.stat
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        for d, m in dirs.items():
            if not m or stat(d or ".", dir_fd=fd).st_ctime_ns != m:
                return False
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
