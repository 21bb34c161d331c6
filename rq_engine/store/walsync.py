"""Syncing a writer's WAL in the background while a bulk pass still has work to overlap it.

With `synchronous = NORMAL` (store/db.py) a commit writes its frames to the WAL
and syncs nothing; the log is synced when a checkpoint copies it into the
database. For `rq --index` that checkpoint comes at the pass's end (the first
commit after the writer settings restore SQLite's 1000-page threshold, or the
close), when nothing else is left to run: on laravel the fdatasync of its ~8 MB
of log took 10-15 ms of a ~20 ms checkpoint. `Flusher.kick()` after each batch
commit syncs what the log holds so far in a thread, while the workers parse;
the checkpoint then finds only the last batch's frames unsynced.

An fdatasync of the log is what SQLite itself does before a checkpoint: never
unsafe, and durability is unchanged. The thread touches no SQLite object (only
its own descriptor of the -wal file, which SQLite never locks), and the pass
joins it before it returns, so no thread outlives a pass to meet a later fork.
Stdlib only.
"""

from __future__ import annotations

import os
import threading

from rq_engine.core.sqlite import sqlite3


class Flusher:
    """Background fdatasync of one connection's WAL file; `close()` waits for it."""

    __slots__ = ("wal", "thread")

    def __init__(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("PRAGMA database_list").fetchone()  # (main: seq 0)
        path = str(row[2]) if row is not None and row[2] else ""
        self.wal = path + "-wal" if path else ""  # ("": in memory, nothing to sync)
        self.thread: threading.Thread | None = None

    def kick(self) -> None:
        """Start a sync of the log as it is now, unless one is still running."""
        if not self.wal or (self.thread is not None and self.thread.is_alive()):
            return
        self.thread = threading.Thread(target=_sync, args=(self.wal,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None


def _sync(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return  # no log (yet, or any more): nothing to sync
    try:
        os.fdatasync(fd)
    except OSError:
        pass  # best effort: the checkpoint syncs the log itself
    finally:
        os.close(fd)
