"""Applying the named migrations (store/migrations.py), each in its own transaction.

A database holding a step this rq does not know was written by a newer rq: its
tables may have columns renamed or meanings changed, so it is refused
(`SchemaTooNew`, exit 74 through store.db) rather than read or "upgraded".
"""

from __future__ import annotations

import time

from rq_engine.core.sqlite import sqlite3
from rq_engine.store.migrations import STEPS, Step
from rq_engine.store.sqlscript import statements
from rq_engine.store.txn import transaction


def applied(conn: sqlite3.Connection) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
    )
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]


class SchemaTooNew(Exception):
    """The database records steps this rq does not know (a newer rq wrote it)."""

    def __init__(self, unknown: list[str]) -> None:
        super().__init__(", ".join(unknown))
        self.unknown = unknown


def latest() -> str:
    """The newest step this rq knows: its schema version."""
    return STEPS[-1][0]


def check_known(names: list[str]) -> None:
    """SchemaTooNew when `names` (schema_migrations, oldest first) holds a step not in STEPS."""
    known = {n for n, _ in STEPS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SchemaTooNew(unknown)


def migrate(conn: sqlite3.Connection, steps: list[Step] | None = None) -> list[str]:
    """Apply every step not yet recorded, in order. Returns the names applied now.
    With the full STEPS (`steps` None), a database from a newer rq raises SchemaTooNew
    (tests migrating to a prefix of STEPS pass `steps`)."""
    names = applied(conn)
    if steps is None:
        check_known(names)
    steps = STEPS if steps is None else steps
    done = set(names)
    if len(done) >= len(steps) and all(name in done for name, _ in steps):
        return []  # the common case on the hot path: one small read, no write lock
    ran: list[str] = []
    for name, body in steps:
        if name in done:
            continue
        with transaction(conn):
            # Re-check under the write lock: a concurrent process may have just applied it.
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                continue
            if callable(body):
                body(conn)
            else:
                for stmt in statements(body):
                    conn.execute(stmt)
            conn.execute(
                "INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)",
                (name, int(time.time())),
            )
        ran.append(name)
    if ran and steps is STEPS:
        from rq_engine.store import derived  # (deferred: migrate() is on every open)

        derived.drain(conn)  # names queued by the steps, keyed by today's code
    return ran
