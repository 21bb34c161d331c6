"""The usage_daily counters: counting a search (`record`) and reading them back (`report`).

Stdlib + rq_engine.core.record only, and no `typing` at runtime: `rq -q` imports
this after its results are printed, and every import here is paid by every
search. Nothing in ranking may import this module (seed: usage is observability,
never ranking input).
"""

from __future__ import annotations

import time

from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.store.txn import transaction

OUTCOMES = ("hit", "miss", "warming")

# A search waits at most this long for the write lock before its counter is
# dropped. The indexer commits a batch at least every 50 ms, so 200 ms rides out
# a normal batch; losing a count under heavier contention is cheaper than making
# `rq -q` (50 ms budget) linger for the store's usual 5 s busy timeout.
RECORD_BUSY_MS = 200

_UPSERT = (
    "INSERT INTO usage_daily (day, source, flags, searches, misses, warming, on_complete) "
    "VALUES (?, ?, ?, 1, ?, ?, ?) "
    "ON CONFLICT (day, source, flags) DO UPDATE SET "
    "searches = searches + 1, misses = misses + excluded.misses, "
    "warming = warming + excluded.warming, on_complete = on_complete + excluded.on_complete"
)


class UsageRow(Record):
    """One (day, source, flags) bucket of usage_daily."""

    # written by hand: every search imports this, and a generated __init__ is compiled at import
    __slots__ = ("day", "source", "flags", "searches", "misses", "warming", "on_complete")

    def __init__(
        self,
        day: str,
        source: str,
        flags: str,
        searches: int,
        misses: int,
        warming: int,
        on_complete: int,
    ) -> None:
        self.day = day
        self.source = source
        self.flags = flags
        self.searches = searches
        self.misses = misses
        self.warming = warming
        self.on_complete = on_complete


def flags_key(*names: str) -> str:
    """The `flags` column: names de-duplicated and sorted, so `--json --explain` and
    `--explain --json` land in one bucket; "" when none. Empty names are dropped, so
    a caller may pass `"json" if ns.json else ""`."""
    for n in names:
        if "," in n:
            raise ValueError(f"flag name {n!r} contains the key separator ','")
    return ",".join(sorted({n for n in names if n}))


def record(
    conn: sqlite3.Connection,
    *,
    source: str,
    flags: str,
    outcome: str,
    on_complete: bool,
    day: str | None = None,
) -> None:
    """Count one search. Never raises a store error and never waits more than
    RECORD_BUSY_MS for the lock: a lost count must not change an exit code.

    `outcome` is "hit", "miss" (nothing, against a ready index) or "warming"
    (nothing, because the index was not ready); anything else is a ValueError.
    """
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown usage outcome {outcome!r} (one of {', '.join(OUTCOMES)})")
    day = day or time.strftime("%Y-%m-%d")  # local date: "today" as the user means it
    params = (
        day,
        source,
        flags,
        int(outcome == "miss"),
        int(outcome == "warming"),
        int(bool(on_complete)),
    )
    try:
        previous = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    except sqlite3.Error:
        return
    try:
        conn.execute(f"PRAGMA busy_timeout = {RECORD_BUSY_MS}")
        with transaction(conn):  # (a failed COMMIT is rolled back: the connection stays usable)
            conn.execute(_UPSERT, params)
    except sqlite3.Error:
        pass  # locked past the short timeout, read-only, full disk: drop this count
    finally:
        try:
            conn.execute(f"PRAGMA busy_timeout = {previous}")
        except sqlite3.Error:
            pass


def report(conn: sqlite3.Connection, days: int | None = None) -> list[UsageRow]:
    """Rows newest day first, then by source and flags; with `days`, only the last
    `days` local dates (today included). Store errors propagate to the caller."""
    sql = "SELECT day, source, flags, searches, misses, warming, on_complete FROM usage_daily"
    args: tuple[str, ...] = ()
    if days is not None:
        if days < 1:
            raise ValueError(f"days must be at least 1, not {days}")
        # date arithmetic, not `time.time() - n * 86400`, which a DST change shifts an hour
        # (free: sqlite3 imports datetime itself). Deferred as only --usage reads back.
        from datetime import date, timedelta

        args = ((date.today() - timedelta(days=days - 1)).isoformat(),)
        sql += " WHERE day >= ?"
    sql += " ORDER BY day DESC, source, flags"
    return [
        UsageRow(str(d), str(s), str(f), int(n), int(m), int(w), int(c))
        for d, s, f, n, m, w, c in conn.execute(sql, args)
    ]
