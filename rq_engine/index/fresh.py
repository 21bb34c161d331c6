"""Has the work tree moved since it was indexed? The verdict a hit trusts, and the check a miss asks.

"Moved" means a new HEAD, a dirty source file whose mtime or size differs from
the indexed one (dirty-but-indexed is unchanged), or a file the index took in
as an edit that no longer matches it (`git checkout -- f` leaves it clean, so
status stops naming it, yet the index still holds the edit). `check` answers
with the paths to reindex, forking `git status` (plus one `git diff` when HEAD
moved); outside git, or when git fails, it asks for a stat walk instead. When
no directory changed (the directory record, D33), that status skips untracked
files and reads only the source files git tracks (the pathspec, listed once per
git-state stamp by a `git ls-files` beside a check): ~7 ms instead of ~12 on
Django, where .po/.mo files outnumber the Python ones.

Why a miss cannot skip git when no directory changed, nor trust a recent check:
an edit in place changes no directory, and nothing short of a stat of every
file shows it (git's status is that stat, on a second core). A check's verdict
stays valid only until the next write — no stamp of directories or clock can
vouch for it — so each miss checks again.

After a check or a sweep, `settle` records the verdict: the git-state stamp
taken before the check (gitstate.stamp), when, the HEAD indexed, and the files
held as edits. `fresh` is the hot path's question — does the stamp still match
a verdict younger than RQ_WARM_RECHECK_MS (10 s)? — answered from one meta row
and a few native reads, no fork (D16). An unstaged edit does not change the
stamp, so it waits out the window; a miss never trusts the window, and a hit's
results are revalidated by stat anyway (search/validate.py).

Stdlib, rq_engine.core, rq_engine.lang's registry data and rq_engine.store only.
"""

from __future__ import annotations

import os
import time

from rq_engine.core.env import env_ms
from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import gitstate
from rq_engine.index.dirrecord import (
    DIRS,
    IGNORED_DIRS,
    _dirs,
    _ignored_dirs,
    _put_dirs,
    _same_dirs,
    dir_keys,
    dirs_of,
)
from rq_engine.lang.registry import language_for_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    StrPath = str | os.PathLike[str]

# store.writes imports typing-free but heavier modules: the functions that write
# import it; the hot path's `fresh` is one SELECT and a few native reads.

RECHECK_MS = 10_000  # RQ_WARM_RECHECK_MS: how long a "nothing moved" verdict is trusted
VERDICT = "verdict:"  # + checkout root -> "<at ms> <stamp>" (plain: no json on the hot path)
TRACKED = "tracked:"  # + checkout root -> Tracked, as lines


def recheck_ms() -> int:
    return env_ms("RQ_WARM_RECHECK_MS", RECHECK_MS)


def _now_ms() -> int:
    return int(time.time() * 1000)


Key = tuple[int, int] | None  # (mtime ns, size) of a file, None when it does not exist


def stat_key(root: str | os.PathLike[str], path: str) -> Key:
    try:
        st = os.stat(os.path.join(root, path))
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def held_keys(root: str | os.PathLike[str], status: gitstate.Status | None) -> dict[str, Key]:
    """What git called dirty or deleted, with each source file's stat key right now: the
    files the index takes in as they are (edits, deletions) and must look at again."""
    if status is None:
        return {}
    paths = {p for p in (*status.dirty, *status.deleted) if language_for_path(p)}
    return {p: stat_key(root, p) for p in sorted(paths)}


class Tracked(Record):
    """What the index holds of a checkout: the HEAD it indexed, the HEAD its commit
    times were read at, and the files it took in while git called them dirty or
    deleted, each with its stat key then (a file rq skips or that was deleted has no
    row to compare with, so the key is what a later check compares)."""

    __slots__ = ("head", "times_head", "held")
    head: str | None
    times_head: str | None
    held: dict[str, Key]

    def __init__(self, head: str | None, times_head: str | None, held: dict[str, Key]) -> None:
        self.head = head
        self.times_head = times_head
        self.held = held


def held_files(conn: sqlite3.Connection, root: str) -> list[str]:
    """The files the index took in as edits (dirty or untracked when it read them):
    the checkout's files being worked on, by the last verdict (one meta row, no fork)."""
    return list(_tracked(conn, root).held)


def _tracked(conn: sqlite3.Connection, root: str) -> Tracked:
    # Plain lines, not JSON (~2 ms to import on a search revalidating an edit): the
    # HEAD, the commit-times HEAD ("-" for none), then "<mtime> <size>\t<path>" or
    # "-\t<path>" a held file.
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (TRACKED + root,)).fetchone()
    lines = str(row[0]).split("\n") if row else []
    head = lines[0] if lines and lines[0] != "-" else None
    times = lines[1] if len(lines) > 1 and lines[1] != "-" else None
    held: dict[str, Key] = {}
    for line in lines[2:]:
        key, tab, path = line.partition("\t")
        if not tab or not path:
            continue
        try:
            mtime, size = key.split()
            held[path] = (int(mtime), int(size))
        except ValueError:
            held[path] = None
    return Tracked(head, times, held)


def _put_tracked(conn: sqlite3.Connection, root: str, t: Tracked) -> None:
    held = [
        (f"{k[0]} {k[1]}" if k else "-") + "\t" + p
        for p, k in sorted(t.held.items())
        if "\n" not in p
    ]
    text = "\n".join([t.head or "-", t.times_head or "-", *held])
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (TRACKED + root, text))


def fresh(
    conn: sqlite3.Connection,
    root: str | os.PathLike[str],
    git_dir: str | os.PathLike[str] | None,
    *,
    ahead_ms: int = 0,
) -> bool:
    """The hot path's question: a verdict younger than the recheck window whose stamp
    still matches. No fork; one indexed read and a few small file reads. `ahead_ms`:
    fresh for at least that much longer (a long-lived face renews a verdict before
    it expires, so its next call does not wait on git)."""
    # (a clock set back must not stretch the window: _verdict_age says "never" then)
    return _verdict_age(conn, os.fspath(root), gitstate.stamp(git_dir)) < recheck_ms() - ahead_ms


def _verdict_age(conn: sqlite3.Connection, root: str, stamp: str) -> int:
    """Milliseconds since the verdict with this stamp was recorded (a large number when
    there is none, it has another stamp, or the clock went back)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (VERDICT + root,)).fetchone()
    never = 1 << 62
    if row is None:
        return never
    at, _, was = str(row[0]).partition(" ")
    try:
        age = _now_ms() - int(at)
    except ValueError:
        return never
    return age if was == stamp and age >= 0 else never


class Moved(Record):
    """What a check found: `paths` to reindex, or `walk` (ask every file by stat).
    `stamp` was taken before the check; `held` is what git called dirty or deleted
    then, with stat keys (held_keys)."""

    __slots__ = ("paths", "walk", "stamp", "held", "dirs")
    paths: list[str]
    walk: bool
    stamp: str
    held: dict[str, Key]
    dirs: dict[str, int] | None  # directory mtimes to record, None: keep what is recorded

    def __init__(
        self,
        paths: list[str],
        walk: bool,
        stamp: str,
        held: dict[str, Key],
        dirs: dict[str, int] | None = None,
    ) -> None:
        self.paths = paths
        self.walk = walk
        self.stamp = stamp
        self.held = held
        self.dirs = dirs

    @property
    def moved(self) -> bool:
        return self.walk or bool(self.paths)


def check(conn: sqlite3.Connection, where: StrPath, gd: StrPath | None, repo_id: int) -> Moved:
    """Ask git whether anything moved in the checkout at `where` (its git directory
    `gd`) since the index was last settled (forks git). Paths, not a Checkout: a miss
    asks this, and building a Checkout imports pathlib (~5 ms)."""
    return Asking.start(conn, where, gd).moved(conn, repo_id)


class Asking:
    """A check under way: git started, its answer not yet read. `start` forks; `moved`
    reads git's answer and decides (`check` is both at once). A search that knows early
    that it will ask (search/service.py) starts it before searching, so git runs
    while the search does; one that does not need it after all calls `abandon`."""

    __slots__ = ("root", "stamp", "since", "quick", "ask", "spec", "listing", "running")

    def __init__(
        self,
        root: str,
        stamp: str,
        since: int,
        quick: bool,
        ask: bool,
        spec: tuple[str, ...] | None,
        listing: gitstate.Running | None,
        running: gitstate.Running | None,
    ) -> None:
        self.root = root
        self.stamp = stamp
        self.since = since
        self.quick = quick
        self.ask = ask
        self.spec = spec
        self.listing = listing
        self.running = running

    @staticmethod
    def start(conn: sqlite3.Connection, where: StrPath, gd: StrPath | None) -> Asking | NoGit:
        from rq_engine.index import pathspec  # (a miss's question: off a hit's path)

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
        return Asking(root, st, since, quick, ask, spec, listing, running)

    def abandon(self) -> None:
        """Not wanted after all: stop git and reap it."""
        for left in (self.running, self.listing):
            if left is not None:
                left.abandon()
        self.running = self.listing = None

    def moved(self, conn: sqlite3.Connection, repo_id: int) -> Moved:
        """Read git's answer (waiting for it) and decide what moved."""
        from rq_engine.index import pathspec

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
            return Moved([], True, st, {})
        return _decide(conn, root, st, repo_id, s, quick, dirs, self.since)


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
        record = dir_keys(root, {*dirs, *new_homes} - ignored, since, ignored)
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
    if _ignore_rules_moved(root, s, paths, tracked, held):
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


def _head_of(stamp: str) -> str | None:
    head = stamp.partition(":")[0]
    return head if head and head != "-" else None


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


def settle(
    conn: sqlite3.Connection,
    where: StrPath,
    gd: StrPath | None,
    repo_id: int,
    stamp: str,
    held: dict[str, Key],
    *,
    reindexed: bool,
    dirs: dict[str, int] | None = None,
) -> None:
    """Record that the index matches the work tree as of `stamp` (taken, with `held`,
    before the check or sweep that made it so): the verdict, the HEAD indexed (the
    stamp's: a checkout during the sweep must not be taken for indexed), the files
    held. Commit times are captured here, only when something was reindexed or HEAD
    moved since the last capture (a `git log` over COMMIT_WINDOW_DAYS). Nothing on a
    read-only store: its verdict cannot be recorded, so every check asks git again."""
    from rq_engine.store.txn import transaction, writable

    if not writable(conn):
        return
    root = os.fspath(where)
    head = _head_of(stamp)
    tracked = _tracked(conn, root)
    if (
        not reindexed
        and dirs is None
        and tracked.head == head
        and tracked.times_head == head
        and tracked.held == held
        and _verdict_age(conn, root, stamp) < recheck_ms() // 2
    ):
        # A miss confirmed what a verdict of the last few seconds said: rewriting it
        # would only move its time (a ~2 ms write on every miss in a burst of them).
        return
    times: dict[str, int] = {}
    if gd is not None and (reindexed or tracked.times_head != head):
        times = gitstate.commit_times(root)
    with transaction(conn):
        if times:
            from rq_engine.store import writes

            writes.set_commit_times(conn, repo_id, times)
        _put_tracked(conn, root, Tracked(head, head, dict(held)))
        if dirs is not None:
            _put_dirs(conn, root, dirs)
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            (VERDICT + root, f"{_now_ms()} {stamp}"),
        )


def note_edits(conn: sqlite3.Connection, root: str | os.PathLike[str], paths: list[str]) -> None:
    """Files a search revalidated singly: the index now holds them as they are, which
    may be an uncommitted edit (or a deletion) the next check must look at again."""
    from rq_engine.store.txn import transaction, writable

    if not paths or not writable(conn):
        return
    with transaction(conn):
        tracked = _tracked(conn, os.fspath(root))
        tracked.held.update((p, stat_key(root, p)) for p in paths)
        _put_tracked(conn, os.fspath(root), tracked)


def forget(conn: sqlite3.Connection, roots: list[str]) -> None:
    """A checkout is gone (pruned, dropped) or another checkout of its repository
    rewrote the rows: its verdict and tracked state go, so its next check starts
    from a stat walk instead of trusting them."""
    from rq_engine.index import pathspec

    keys = (VERDICT, TRACKED, DIRS, IGNORED_DIRS, pathspec.PATHSPEC, pathspec.OLD_PATHSPEC)
    conn.executemany(
        f"DELETE FROM meta WHERE key IN ({', '.join('?' * len(keys))})",
        [tuple(k + r for k in keys) for r in roots],
    )
