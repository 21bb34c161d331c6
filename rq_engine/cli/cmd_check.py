"""`rq --check`: is the index sound? Exit 0 when it is, 74 with every problem listed.

Runs SQLite's `integrity_check`, the foreign-key check, FTS5's own integrity
check (when the store is writable: it is an INSERT that writes nothing) and the
derived-table agreement of index/check.py. The problems go to stdout, one a line
(the report is the data; with --json one object, `{"index", "ok", "results":
[{"problem"}]}`, through the printer seam as `rq -q` prints; plain lines through
core/escape.visible, JSON exact); stderr has one `rq:` line. Migrates nothing and repairs nothing: `rq --index` repairs what a
dead writer left. Stdlib + rq_engine.
"""

from __future__ import annotations

import os
import sys

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.escape import visible

TYPE_CHECKING = False  # `typing` costs ~2 ms to import
if TYPE_CHECKING:
    import argparse


def run(ns: argparse.Namespace) -> int:
    import sqlite3

    from rq_engine.core.printers import Output, printer_for
    from rq_engine.index import check
    from rq_engine.store.db import connect
    from rq_engine.store.paths import index_db_file

    printer = printer_for(json=ns.json, ndjson=ns.ndjson)
    db = index_db_file()
    if not os.path.exists(db):
        note = visible(f"no index at {db}: nothing to check")
        printer.write(sys.stdout, Output({"index": db, "ok": True}, [], [note]))
        return int(ExitCode.OK)
    conn = connect(db, migrate=False)  # read-only when the store cannot be written
    try:
        problems = check.sqlite_problems(conn, full=True)
        if not problems:  # (counting rows over a damaged file says nothing more)
            problems = check.derived(conn).problems
    except sqlite3.DatabaseError as e:
        problems = [str(e)]
    finally:
        conn.close()
    # (the index path is the user's, a problem may quote a name: shown as --status shows them)
    lines = [visible(line) for line in problems or [f"{db}: ok"]]
    records: list[dict[str, object]] = [{"problem": p} for p in problems]
    printer.write(sys.stdout, Output({"index": db, "ok": not problems}, records, lines))
    sys.stdout.flush()
    if not problems:
        return int(ExitCode.OK)
    n = len(problems)
    raise RqError(f"the index {db} failed its check: {n} problem{'s' if n > 1 else ''}")
