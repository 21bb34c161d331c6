"""The warm lock: at most one warmer per repository, stamped with its process (pid + start time).

A row in `meta` (`warm_lock:` + the repository's identity) names the process
that warms it. A burst of queries reads the row and starts no warmer while its
holder lives; a holder that died (kill -9, a crash, a reboot) is taken over,
and a pid the kernel has since given to another process does not count as
alive (index/owner.py). A search spawning the detached warmer claims the lock
for the child inside one write transaction (`claim_for`), so two searches can
never both start one.

On a read-only store (store.txn.writable) nobody can warm: `claim` succeeds with
nothing written (the pass it guards writes nothing either: index/indexer.py),
`claim_for` starts no warmer and `release` has nothing to give back.

Stdlib + rq_engine.index.owner + rq_engine.store only.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rq_engine.core.sqlite import sqlite3
from rq_engine.index import owner
from rq_engine.index.owner import Owner
from rq_engine.store.txn import transaction, writable

PREFIX = "warm_lock:"


def _key(identity: str) -> str:
    return PREFIX + identity


def _read(conn: sqlite3.Connection, identity: str) -> Owner | None:
    # "<pid> <start> <since>", plain: a hit handing off reads it, and json costs ~2 ms
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_key(identity),)).fetchone()
    if row is None:
        return None
    try:
        pid, start = str(row[0]).split()[:2]
        return Owner(int(pid), int(start))
    except ValueError:
        return None


def _write(conn: sqlite3.Connection, identity: str, who: Owner) -> None:
    val = f"{who.pid} {who.start} {int(time.time())}"
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_key(identity), val))


def holder(conn: sqlite3.Connection, identity: str) -> Owner | None:
    """The live process warming this repository, if any (one read, no write)."""
    who = _read(conn, identity)
    return who if who is not None and owner.alive(who) else None


def claim(conn: sqlite3.Connection, identity: str, who: Owner) -> bool:
    """Take the lock for `who` unless another live process holds it (ours already: True)."""
    if not writable(conn):
        return True  # a read-only store: nothing to guard, nothing recorded
    with transaction(conn):
        cur = _read(conn, identity)
        if cur is not None and cur != who and owner.alive(cur):
            return False
        if cur != who:
            _write(conn, identity, who)
    return True


def claim_for(
    conn: sqlite3.Connection,
    identity: str,
    spawn: Callable[[], int],
    needed: Callable[[], bool] = lambda: True,
) -> int | None:
    """If nobody live holds the lock and `needed()` still says so: run `spawn` (which
    starts the warmer and returns its pid) and record that process as the holder, in
    one write transaction. `needed` is asked under the write lock, so a warmer that
    just finished (and recorded its verdict) is not followed by a second. The pid, or
    None when nothing was spawned."""
    if not writable(conn):
        return None  # a warmer could not write a read-only store either
    with transaction(conn):
        cur = _read(conn, identity)
        if cur is not None and owner.alive(cur):
            return None
        if not needed():
            return None
        pid = spawn()
        child = owner.of(pid)
        _write(conn, identity, child if child is not None else Owner(pid, 0))
    return pid


def release(conn: sqlite3.Connection, identity: str, who: Owner) -> None:
    """Give the lock back (only if `who` still holds it)."""
    if not writable(conn):
        return
    with transaction(conn):
        if _read(conn, identity) == who:
            conn.execute("DELETE FROM meta WHERE key = ?", (_key(identity),))
