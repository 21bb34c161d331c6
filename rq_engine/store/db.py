"""The one place that opens SQLite connections: WAL, busy timeout, foreign keys, migrations.

`connect` opens the index file — read-only when it cannot be written (D35),
refused when a newer rq wrote it or RQ_HOME is not a directory; `connect_memory`
an in-memory store with the same schema (the live scan of an untracked
directory indexes into it).

No other module calls `sqlite3.connect` on the index (the text cache under
$RQ_CACHE has its own opener in rq_engine.text).
"""

from __future__ import annotations

import os

from rq_engine import __version__
from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.sqlite import sqlite3
from rq_engine.store import migrations, schema
from rq_engine.store.paths import home_problem, index_db_file

# A writer commits a batch at least every 50 ms; 5 s covers a slow fsync and a
# checkpoint without ever making a reader give up under normal load.
BUSY_TIMEOUT_MS = 5000


def connect(
    path: str | os.PathLike[str] | None = None,
    *,
    readonly: bool = False,
    migrate: bool = True,
    busy_ms: int = BUSY_TIMEOUT_MS,
    writer: bool = False,
) -> sqlite3.Connection:
    """Open the index database, creating and migrating it unless `readonly`.

    A read-only open of a database that does not exist raises RqError (callers
    treat that as "never indexed"). Errors are RqError with exit code 74. Background
    writers (an explicit index, the warmer) pass a longer `busy_ms`: the last writer to
    close checkpoints a big WAL under an exclusive lock, and SQLite's busy handler is
    not fair, so on a loaded machine an open can wait longer than a search should.

    A store this process cannot write (a read-only file, directory or mount) is
    opened read-only, so it still answers queries: `query_only` is set, and the
    query path's writes (usage, verdict, warm lock, revalidation) skip themselves
    (txn.writable). A `writer` (an explicit index, a drop, the warmer) gets RqError
    74 instead. A database from a newer rq (a step this rq does not know in
    schema_migrations) is refused with RqError 74 naming both schema versions.
    """
    default = path is None
    path = os.fspath(path) if path is not None else index_db_file()
    if default:
        problem = home_problem()
        if problem is not None:
            raise RqError(f"cannot open index {path}: {problem}", ExitCode.IOERR)
    conn: sqlite3.Connection | None = None
    try:
        fallback = False
        if not readonly and os.path.exists(path):
            why = _unwritable(path)
            if why is not None:
                if writer:
                    raise RqError(f"cannot write the index {path}: {why}", ExitCode.IOERR)
                readonly = fallback = True  # a read-only store still answers queries
        if readonly:
            conn = _open_readonly(path, busy_ms)
            _check_schema(conn, path, need_current=fallback and migrate)
            return conn
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=busy_ms / 1000, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise RqError(f"cannot put {path} in WAL mode (got {mode})", ExitCode.IOERR)
        # NORMAL is durable across application crashes in WAL mode; only an OS
        # crash can lose the last commits, which a re-index restores.
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            if migrate:
                schema.migrate(conn)
            else:
                schema.check_known(schema.applied(conn))
        except schema.SchemaTooNew as e:
            raise RqError(_too_new(path, e.unknown), ExitCode.IOERR) from None
        return conn
    except BaseException as e:
        if conn is not None:
            conn.close()
        if isinstance(e, sqlite3.DatabaseError):
            raise RqError(f"cannot open index {path}: {e}", ExitCode.IOERR) from e
        if isinstance(e, OSError):
            raise RqError(f"cannot open index {path}: {e.strerror or e}", ExitCode.IOERR) from e
        raise


def _unwritable(path: str) -> str | None:
    """Why this process cannot write the store at `path` (an existing file), or None.
    access(2), not a trial open: closing any descriptor of the database file would drop
    the POSIX locks this process's other connections hold on it. The directory must be
    writable too (WAL mode creates the -wal and -shm files beside the database)."""
    where = os.path.dirname(path) or "."
    for p in (path, where):
        if not os.access(p, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            try:
                ro = bool(os.statvfs(p).f_flag & os.ST_RDONLY)
            except OSError:
                ro = False
            what = "the file" if p == path else "its directory"
            return "read-only file system" if ro else f"{what} is not writable"
    return None


def _uri(path: str, query: str) -> str:
    # (urllib.parse costs ~2 ms to import: the three characters a file: URI reserves)
    quoted = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{quoted}?{query}"


def _open_readonly(path: str, busy_ms: int) -> sqlite3.Connection:
    """A read-only connection. In a directory nobody can write, a WAL database without
    its -shm file cannot be opened `mode=ro` (SQLite must create the -shm): such a
    store is opened `immutable` — nobody can change it either."""
    if not os.path.exists(path):
        raise RqError(f"no index at {path}", ExitCode.IOERR)
    for query in ("mode=ro", "immutable=1"):
        conn = sqlite3.connect(
            _uri(path, query),
            uri=True,
            timeout=busy_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # (opens the WAL)
            return conn
        except sqlite3.OperationalError:
            conn.close()
            where = os.path.dirname(path) or "."
            if query != "mode=ro" or os.path.exists(path + "-shm") or _unwritable(where) is None:
                raise
    raise AssertionError("unreachable")


def _check_schema(conn: sqlite3.Connection, path: str, *, need_current: bool) -> None:
    """Refuse a database from a newer rq; with `need_current` (a read-only store opened
    for a query, which cannot be migrated), one from an older rq too."""
    has = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    names = (
        [str(r[0]) for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]
        if has
        else []
    )
    try:
        schema.check_known(names)
    except schema.SchemaTooNew as e:
        raise RqError(_too_new(path, e.unknown), ExitCode.IOERR) from None
    if need_current and any(n not in names for n, _ in migrations.STEPS):
        have = names[-1] if names else "none"
        raise RqError(
            f"the index {path} is read-only and older than this rq (schema {have}; rq "
            f"{__version__} needs {schema.latest()}): open it once with write access",
            ExitCode.IOERR,
        )


def _too_new(path: str, unknown: list[str]) -> str:
    return (
        f"the index {path} was written by a newer rq (schema {unknown[-1]}); this rq "
        f"{__version__} knows schema up to {schema.latest()}: upgrade rq, or set RQ_HOME "
        "to another directory"
    )


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
        schema.migrate(conn)
        return conn
    except sqlite3.DatabaseError as e:
        raise RqError(f"cannot create an in-memory index: {e}", ExitCode.IOERR) from e
