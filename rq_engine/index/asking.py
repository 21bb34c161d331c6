"""A miss's question to git, in two steps: `Asking.start` forks, `Asking.moved` reads and decides.

index/fresh.py says what "moved" means and records the verdicts; this asks. When
the directory record (D33) is there, git's quick status (no untracked files,
narrowed to the source files: index/pathspec.py) starts first and runs while this
process stats the recorded directories; when a directory changed, the full status
replaces it. `fresh.check` takes both steps at once; a search that knows before it
searches that its answer will ask (search/asking.py: outside the recheck window,
a name the index holds no definition of) starts it first, so git runs beside the
search, and `abandon`s it should the answer not need it after all.

Stdlib, rq_engine.core, rq_engine.lang's registry data, rq_engine.store and the
other index modules a check reads (fresh, gitstate, dirrecord, pathspec) only;
loaded on a miss, never on a hit.
"""

from __future__ import annotations

import os
import time

from rq_engine.core.identity import git_dir
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import gitstate, pathspec
from rq_engine.index.dirrecord import (
    DIRS,
    _dirs,
    _ignored_dirs,
    _same_dirs,
    dir_keys,
    dirs_of,
    rule_files,
    rules_moved,
)
from rq_engine.index.fresh import (
    Key,
    Moved,
    Tracked,
    _head_of,
    _tracked,
    doubt,
    held_keys,
    stat_key,
)
from rq_engine.lang.registry import language_for_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.index.gitrun import Running

    StrPath = str | os.PathLike[str]


class Asking:
    """A check under way: git started, its answer not yet read (`fresh.check` is both
    steps at once)."""

    __slots__ = ("root", "stamp", "since", "quick", "ask", "listing", "running")

    def __init__(
        self,
        root: str,
        stamp: str,
        since: int,
        quick: bool,
        ask: bool,
        listing: Running | None,
        running: Running | None,
    ) -> None:
        self.root = root
        self.stamp = stamp
        self.since = since
        self.quick = quick
        self.ask = ask
        self.listing = listing
        self.running = running

    @staticmethod
    def start(conn: sqlite3.Connection, where: StrPath, gd: StrPath | None) -> Asking | NoGit:
        st = gitstate.stamp(gd)  # before status: a change during the check leaves it stale
        if gd is None:
            return NoGit(st)
        since = time.time_ns()
        root = os.fspath(where)
        # No directory changed: nothing was added or removed, so git need not read every
        # directory for untracked files (~20 ms of a ~30 ms status on Django), and of the
        # files it tracks only the source files can matter (the pathspec). The quick
        # status starts first and runs while the directories are stat'ed (~5 ms).
        record = conn.execute("SELECT length(value) FROM meta WHERE key = ?", (DIRS + root,))
        size = record.fetchone()  # (its size alone: SQLite reads no blob for length())
        quick = size is not None
        spec = pathspec.recorded(conn, root, st)
        listing = None
        if spec is None and _writable(conn):  # list what git tracks now, for the next check
            listing = gitstate.start_listing(root)
        ask = spec != ()  # () : git tracks no source file (nor .gitignore): nothing to say
        running = None
        if not quick:
            running = gitstate.start_status(root)
        elif ask:
            narrow = () if spec is None or spec == (".",) else spec
            threads = _git_threads(gd, int(size[0] or 0))
            running = gitstate.start_status(root, untracked=False, pathspec=narrow, threads=threads)
        return Asking(root, st, since, quick, ask, listing, running)

    def abandon(self) -> None:
        """Not wanted after all: stop git and reap it."""
        for left in (self.running, self.listing):
            if left is not None:
                left.abandon()
        self.running = self.listing = None

    def moved(self, conn: sqlite3.Connection, repo_id: int) -> Moved:
        """Read git's answer (waiting for it) and decide what moved."""
        root, st, quick = self.root, self.stamp, self.quick
        try:
            dirs = _dirs(conn, root) if quick else {}
            if quick and (not dirs or not _same_dirs(root, dirs)):
                quick = False
                if self.running is not None:
                    self.running.abandon()
                self.running = None
                self.running = gitstate.start_status(root)
            if self.listing is not None:  # (git lists faster than it checks: read it meanwhile)
                out, self.listing = self.listing.result(), None
                if out is not None:
                    pathspec.record(conn, root, st, pathspec.of_listing(out))
            if quick and not self.ask:
                s: gitstate.Status | None = gitstate.Status([], [])
            else:
                s, self.running = gitstate.finish_status(self.running), None  # (None: failed)
        finally:
            self.abandon()
        if s is None:
            m = Moved([], True, st, {})
        else:
            m = _decide(conn, root, st, repo_id, s, quick, dirs, self.since)
        if m.moved:  # (the last "nothing moved" is proved wrong: no one may trust it now)
            doubt(conn, root, self.since)
        return m


class NoGit:
    """The check outside git: nothing to ask, every file to stat (a walk)."""

    __slots__ = ("stamp",)

    def __init__(self, stamp: str) -> None:
        self.stamp = stamp

    def abandon(self) -> None:
        pass

    def moved(self, conn: sqlite3.Connection, repo_id: int) -> Moved:
        return Moved([], True, self.stamp, {})


def _decide(
    conn: sqlite3.Connection,
    root: str,
    st: str,
    repo_id: int,
    s: gitstate.Status,
    quick: bool,
    dirs: dict[str, int],
    since: int,
) -> Moved:
    """What moved, from git's status `s` (quick: without untracked files, the
    directories unchanged) and what the index holds."""
    record: dict[str, int] | None = None
    if not quick and dirs:
        # what the next check compares with: the same directories as they are now, and
        # the new files' homes (a record comes whole from a sweep's listing: a check
        # never starts one, or directories it does not know would look unchanged)
        new_homes = dirs_of(s.dirty)
        ignored = _ignored_dirs(conn, root) - new_homes
        rules = rule_files(s.dirty, git_dir(root))  # (a new `.gitignore`, info/exclude)
        record = dir_keys(root, {*dirs, *new_homes} - ignored, since, ignored, rules)
    tracked = _tracked(conn, root)
    old_head = tracked.head
    new_head = _head_of(st)
    paths: set[str] = set()
    walk = False
    if new_head != old_head:
        diff = None
        if old_head and new_head:
            diff = gitstate.changed_between(root, old_head, new_head)
        if diff is None:
            walk = True  # an unknown or unborn HEAD: let the stat walk decide
        else:
            paths.update(diff)
    held = held_keys(root, s)
    candidates = sorted({*held, *(p for p in tracked.held if language_for_path(p))})
    indexed = _file_keys(conn, repo_id, candidates)
    for p in candidates:
        now = held[p] if p in held else stat_key(root, p)
        if p in indexed:
            was = indexed[p]  # the row: what the index holds
        elif p in tracked.held:
            was = tracked.held[p]  # no row (deleted, or a file rq skips): as it was then
        else:
            was = None  # never seen: new if it exists
        if was != now:
            paths.add(p)
    if quick:
        # untracked files git did not list this time: the held ones are still held
        held.update((p, stat_key(root, p)) for p in tracked.held if p not in held)
    if _ignore_rules_moved(root, s, paths, tracked, held) or (
        not quick and rules_moved(root, dirs)
    ):
        walk = True  # what git lists changed with no file changing: let the walk decide
    keep = sorted(p for p in paths if language_for_path(p))
    return Moved(keep, walk, st, held, record)


# A directory takes ~50 bytes of the record (marshal: 53 on Django, 46 on Go std).
DIR_RECORD_BYTES = 50
# git's quick status lstats its files on threads (core.preloadIndex: one per 500 index
# entries) while this process stats the record's directories (~1.5 µs each). With
# fewer than this many index entries a directory, the two take about as long, and
# git's threads only take the core that stat loop needs: on two cores Django's check
# (6,151 entries, 3,192 directories) takes ~7.7 ms with them and ~7.0 without, Go
# std's (8,176 and 799) ~8.5 with them and ~12 without.
THREADS_AT_ENTRIES_PER_DIR = 3


def _git_threads(gd: StrPath, record_bytes: int) -> bool:
    """Whether the quick status should lstat on threads beside the directory stats."""
    dirs = record_bytes // DIR_RECORD_BYTES
    return gitstate.index_entries(gd) >= THREADS_AT_ENTRIES_PER_DIR * dirs


def _ignore_rules_moved(
    root: str, s: gitstate.Status, paths: set[str], tracked: Tracked, held: dict[str, Key]
) -> bool:
    """Whether a `.gitignore` git names (dirty, deleted, or changed between HEADs) differs
    from when the index was settled. A file it newly ignores changes in no way git
    reports (an untracked file simply stops being listed), so only a walk, which lists
    what git would now, drops its rows. The `.gitignore`s are held with their stat
    keys, so an unchanged one that stays uncommitted costs no walk on the next check."""
    moved = False
    for p in {*s.dirty, *s.deleted, *paths, *tracked.held}:  # (held: the quick status lists
        if p.rpartition("/")[2] != ".gitignore":  # no untracked file)
            continue
        now = stat_key(root, p)
        held[p] = now
        moved = moved or tracked.held.get(p) != now or p in paths
    return moved


def _writable(conn: sqlite3.Connection) -> bool:
    from rq_engine.store.txn import writable

    return writable(conn)


def _file_keys(conn: sqlite3.Connection, repo_id: int, paths: list[str]) -> dict[str, Key]:
    out: dict[str, Key] = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for p, mtime, size in conn.execute(
            f"SELECT path, mtime, size FROM files WHERE repository_id = ? AND path IN ({marks})",
            (repo_id, *chunk),
        ):
            out[str(p)] = (mtime, size) if mtime is not None and size is not None else None
    return out
