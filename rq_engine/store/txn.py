"""The one transaction helper: BEGIN IMMEDIATE … COMMIT, rolled back on any exception.

A class, not a contextlib generator: the hot path's writes (a miss's verdict, the
warm lock of a hit that hands off) import this and nothing else (contextlib and
the writer module cost ~1-2 ms a process start).
"""

from __future__ import annotations

from rq_engine.core.sqlite import sqlite3


class transaction:  # noqa: N801 — used as a function: `with transaction(conn):`
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (KeyboardInterrupt
    included). IMMEDIATE takes the write lock up front, so two writers queue on
    busy_timeout instead of failing with SQLITE_BUSY on lock upgrade.

    `join=True`: inside a transaction the caller already holds, do nothing (the
    caller commits)."""

    __slots__ = ("conn", "own", "join")

    def __init__(self, conn: sqlite3.Connection, *, join: bool = False) -> None:
        self.conn = conn
        self.join = join
        self.own = False

    def __enter__(self) -> sqlite3.Connection:
        self.own = not (self.join and self.conn.in_transaction)
        if self.own:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: object, *_: object) -> None:
        if not self.own:
            return
        if kind is not None:
            self.conn.execute("ROLLBACK")
            return
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error:
            # A COMMIT that failed (busy past the timeout, a full disk) leaves the
            # transaction open: close it, so the connection stays usable.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise


def writable(conn: sqlite3.Connection) -> bool:
    """False on a connection opened read-only (store.db.connect sets `query_only` on
    every read-only open, including a store it found it cannot write). The query
    path's writes (the verdict, the warm lock, a revalidation's reindex) skip
    themselves on such a connection: a read-only index still answers. ~2 µs."""
    return not conn.execute("PRAGMA query_only").fetchone()[0]


__all__ = ["transaction", "writable"]
