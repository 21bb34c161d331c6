"""`rq --usage`: the usage_daily counters as a table (or `--json`), read-only.

stdout carries the data; errors go through RqError (exit 74 for an unreadable
index; cli/args.py refuses a bad combination of flags). Stdlib + rq_engine.store only: no
search, index or UI module is imported to print counters.
"""

from __future__ import annotations

import sys

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.escape import visible

TYPE_CHECKING = False  # `typing` costs ~2 ms to import; mypy honours a local flag
if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from rq_engine.store.usage import UsageRow

COLUMNS = ("DAY", "SOURCE", "FLAGS", "SEARCHES", "MISSES", "WARMING", "ON-COMPLETE")
KEYS = ("day", "source", "flags", "searches", "misses", "warming", "on_complete")


def run(ns: argparse.Namespace) -> int:
    rows = _read(json=bool(ns.json))
    if rows is None:
        return int(ExitCode.OK)
    if ns.json:
        _json(rows, sys.stdout)
    else:
        _table(rows, sys.stdout)
    return int(ExitCode.OK)


def _read(*, json: bool) -> list[UsageRow] | None:
    """All rows, or None after saying there is no index at all (--json: an empty array)."""
    import sqlite3

    from rq_engine.store.db import connect
    from rq_engine.store.paths import index_db_path
    from rq_engine.store.usage import report

    db = index_db_path()
    if not db.exists():
        # Not an error: nothing has searched yet, so there is nothing to count. (The
        # path is the user's RQ_HOME: shown as --status shows it.)
        print("[]" if json else visible(f"no usage recorded yet (no index at {db})"))
        return None
    conn = connect(db, readonly=True)  # RqError (74) on an unopenable file
    try:
        return report(conn)
    except (sqlite3.Error, ValueError, TypeError) as e:
        # garbage or a foreign SQLite file at the index path: one line, no traceback
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise RqError(f"cannot read usage from index {db}: {first}", ExitCode.IOERR) from e
    finally:
        conn.close()


def _json(rows: list[UsageRow], out: TextIO) -> None:
    import json

    out.write(json.dumps([{k: getattr(r, k) for k in KEYS} for r in rows]) + "\n")


def _table(rows: list[UsageRow], out: TextIO) -> None:
    if not rows:
        out.write("no usage recorded yet\n")
        return
    cells = [COLUMNS] + [
        (
            r.day,
            r.source,
            r.flags or "-",
            str(r.searches),
            str(r.misses),
            str(r.warming),
            str(r.on_complete),
        )
        for r in rows
    ]
    widths = [max(len(row[c]) for row in cells) for c in range(len(COLUMNS))]
    for row in cells:
        # text columns left, counts right, as in `rq --status`
        line = "  ".join(
            row[c].ljust(widths[c]) if c < 3 else row[c].rjust(widths[c]) for c in range(len(row))
        )
        out.write(line.rstrip() + "\n")
    out.write("\n" + _totals(rows) + "\n")


def _totals(rows: list[UsageRow]) -> str:
    """Misses and not-yets stay apart (seed): a miss rate over searches that ran against
    a complete index, and the warming count on its own, never one netted number."""
    searches = sum(r.searches for r in rows)
    misses = sum(r.misses for r in rows)
    warming = sum(r.warming for r in rows)
    complete = sum(r.on_complete for r in rows)
    if complete:
        rate = (
            f"{100 * misses / complete:.1f}% miss rate ({misses} answered nothing "
            f"of {complete} on a complete index)"
        )
    else:
        rate = "none ran against a complete index (no miss rate yet)"
    return (
        f"total: {searches} searches; {rate}; "
        f"{warming} answered nothing because the index was warming"
    )
