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
Django, where .po/.mo files outnumber the Python ones. How the check asks, and
how a search starts it before searching: index/asking.py.

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
results are revalidated by stat anyway (search/validate.py). A check that finds
something moved drops the verdict it proves wrong (`doubt`), so the warmer a
query leaves the catch-up to is not refused as "fresh" inside the window.

Stdlib, rq_engine.core, rq_engine.lang's registry data and rq_engine.store only.
"""

from __future__ import annotations

import os
import time

from rq_engine.core.env import env_ms
from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import gitstate
from rq_engine.index.dirrecord import DIRS, IGNORED_DIRS, OLD_DIRS, _put_dirs
from rq_engine.lang.registry import language_for_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.index.gitrun import Running

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
    """The file's (mtime, size) as the indexer sees it: of the link when it is a
    symlink (never followed: a file replaced by a link to its new place has moved),
    None when it is absent or behind a linked directory (git lists nothing there)."""
    from rq_engine.index.reading import behind_link  # (a check's, never a hit's)

    try:
        st = os.lstat(os.path.join(root, path))
    except OSError:
        return None
    if "/" in path and behind_link(os.fspath(root), path):
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
    asks this, and building a Checkout imports pathlib (~5 ms). In two steps, when a
    search starts it early: index/asking.py."""
    from rq_engine.index.asking import Asking

    return Asking.start(conn, where, gd).moved(conn, repo_id)


def _head_of(stamp: str) -> str | None:
    head = stamp.partition(":")[0]
    return head if head and head != "-" else None


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
    log: Running | None = None,
) -> None:
    """Record that the index matches the work tree as of `stamp` (taken, with `held`,
    before the check or sweep that made it so): the verdict, the HEAD indexed (the
    stamp's: a checkout during the sweep must not be taken for indexed), the files
    held. Commit times are captured here, only when something was reindexed or HEAD
    moved since the last capture (a `git log` over COMMIT_WINDOW_DAYS). Nothing on a
    read-only store: its verdict cannot be recorded, so every check asks git again.
    `log` is the capture's `git log` if the caller started it (gitstate.start_commit_times);
    the caller abandons it after (it is read here only when wanted)."""
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
        times = gitstate.commit_times(root, running=log)
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


def doubt(conn: sqlite3.Connection, where: StrPath, since_ns: int) -> None:
    """A check that started at `since_ns` (time.time_ns) found the work tree moved: the
    verdict recorded before it, that nothing had, no longer holds. It goes, so that
    until a catch-up settles a new one no answer trusts it and a query that leaves the
    catch-up to the warmer (`--no-wait`, a budget cut short) does start one inside the
    recheck window too (warm._needs asks `fresh`). A verdict recorded after the check
    started (another rq caught up meanwhile) is kept: the delete names the value read.
    Nothing on a read-only store."""
    from rq_engine.store.txn import writable

    key = VERDICT + os.fspath(where)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    if row is None or not writable(conn):
        return
    at = str(row[0]).partition(" ")[0]
    if at.isdigit() and int(at) > since_ns // 1_000_000:
        return
    conn.execute("DELETE FROM meta WHERE key = ? AND value = ?", (key, row[0]))


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

    keys = (
        VERDICT,
        TRACKED,
        DIRS,
        OLD_DIRS,
        IGNORED_DIRS,
        pathspec.PATHSPEC,
        pathspec.OLD_PATHSPEC,
    )
    conn.executemany(
        f"DELETE FROM meta WHERE key IN ({', '.join('?' * len(keys))})",
        [tuple(k + r for k in keys) for r in roots],
    )
