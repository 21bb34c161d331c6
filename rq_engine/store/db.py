"""The one place that opens SQLite connections: WAL, busy timeout, foreign keys, migrations.

`connect` opens the index file; `connect_memory` an in-memory store with the
same schema (the live scan of an untracked directory indexes into it).

No other module calls `sqlite3.connect` on the index (the text cache under
$RQ_CACHE has its own opener in rq_engine.text).
"""

from __future__ import annotations

import os
import sqlite3

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.store import migrations
from rq_engine.store.paths import index_db_file

# A writer commits a batch at least every 50 ms; 5 s covers a slow fsync and a
# checkpoint without ever making a reader give up under normal load.
BUSY_TIMEOUT_MS = 5000


def connect(
    path: str | os.PathLike[str] | None = None,
    *,
    readonly: bool = False,
    migrate: bool = True,
    busy_ms: int = BUSY_TIMEOUT_MS,
) -> sqlite3.Connection:
    """Open the index database, creating and migrating it unless `readonly`.

    A read-only open of a database that does not exist raises RqError (callers
    treat that as "never indexed"). Errors are RqError with exit code 74. Background
    writers (an explicit index, the warmer) pass a longer `busy_ms`: the last writer to
    close checkpoints a big WAL under an exclusive lock, and SQLite's busy handler is
    not fair, so on a loaded machine an open can wait longer than a search should.
    """
    path = os.fspath(path) if path is not None else index_db_file()
    try:
        if readonly:
            if not os.path.exists(path):
                raise RqError(f"no index at {path}", ExitCode.IOERR)
            conn = sqlite3.connect(
                f"file:{path}?mode=ro",
                uri=True,
                timeout=busy_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        else:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            conn = sqlite3.connect(
                path, timeout=busy_ms / 1000, isolation_level=None, check_same_thread=False
            )
        conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise RqError(f"cannot put {path} in WAL mode (got {mode})", ExitCode.IOERR)
            # NORMAL is durable across application crashes in WAL mode; only an OS
            # crash can lose the last commits, which a re-index restores.
            conn.execute("PRAGMA synchronous = NORMAL")
            if migrate:
                migrations.migrate(conn)
        else:
            conn.execute("PRAGMA query_only = ON")
        return conn
    except sqlite3.DatabaseError as e:
        raise RqError(f"cannot open index {path}: {e}", ExitCode.IOERR) from e
    except OSError as e:
        raise RqError(f"cannot open index {path}: {e.strerror or e}", ExitCode.IOERR) from e


def connect_memory() -> sqlite3.Connection:
    """A private in-memory store with the index's schema (every migration applied).

    Like `connect`: autocommit (`isolation_level=None`), usable from any thread,
    foreign keys on. No WAL and no busy timeout: nobody else can open it. The
    migrations cost ~3 ms (~8 ms the first time in a process); the database is
    gone when the connection closes.
    """
    try:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys = ON")
        migrations.migrate(conn)
        return conn
    except sqlite3.DatabaseError as e:
        raise RqError(f"cannot create an in-memory index: {e}", ExitCode.IOERR) from e
