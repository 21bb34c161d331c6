"""`rq --status`: what is indexed — the table, or its facts as JSON — after SQLite's quick check.

stdout carries the table (or one object with --json, a repository a line with
--ndjson, through the printer seam), its roots and names shown through
core/escape.visible as every plain face shows paths (JSON keeps them exact); the problems found go to stderr as `rq: …`
and a failed quick check exits 74. Stdlib + rq_engine only.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from typing import TYPE_CHECKING, TextIO

from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.escape import visible
from rq_engine.core.printers import Output, printer_for

if TYPE_CHECKING:
    from rq_engine.store.status import RepoRow


def run(ns: argparse.Namespace) -> int:
    try:
        return status(sys.stdout, json=ns.json, ndjson=ns.ndjson)
    except sqlite3.Error as e:
        # e.g. "database is locked" past the busy timeout, a corrupt file
        raise RqError(f"index error: {e}", ExitCode.IOERR) from e


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "-"


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def status(out: TextIO, *, json: bool = False, ndjson: bool = False) -> int:
    """The table, or with --json one object with the same facts (--ndjson: a repository a
    line), through the printer seam as `rq -q` prints: `index`, its `bytes`, `results`
    (a repository each) and the `problems` the checks found."""
    from rq_engine.store import status
    from rq_engine.store.db import connect
    from rq_engine.store.paths import index_db_path

    printer = printer_for(json=json, ndjson=ndjson)
    db = index_db_path()
    if not db.exists():
        note = visible(f"no repositories indexed (no index at {db})")
        printer.write(
            out, Output({"index": str(db), "bytes": 0}, [], [note], tail={"problems": []})
        )
        return int(ExitCode.OK)
    from rq_engine.index import check
    from rq_engine.lang import unread

    try:
        conn = connect(db, readonly=True)
        try:
            repos = status.repositories(conn)
            # SQLite's quick check (every page read once), and the derived tables counted
            # against the symbols: "complete" is never shown over a store that lost them
            broken = check.sqlite_problems(conn, full=False)
            found = check.derived(conn) if not broken else check.Findings()
        finally:
            conn.close()
    except RqError:
        raise
    except Exception as e:  # a corrupt or foreign file at the index path
        raise RqError(f"cannot read index {db}: {e}", ExitCode.IOERR) from e
    rows = [("REPOSITORY", "COVERAGE", "FILES", "SYMBOLS", "SKIPPED", "FAILED", "UPDATED")]
    for r in repos:
        rows.append(
            (
                visible(r.identity),  # (`local:` + a root: the user's data, as the roots)
                "damaged" if r.id in found.damaged else r.status,
                str(r.files),
                str(r.symbols),
                str(r.files_skipped or 0),
                str(r.files_failed or 0),
                _when(r.updated_at),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines: list[str] = []
    for i, row in enumerate(rows):
        cells = [
            row[c].ljust(widths[c]) if c in (0, 1, 6) else row[c].rjust(widths[c])
            for c in range(len(row))
        ]
        lines.append("  ".join(cells).rstrip())
        if i:
            for co in repos[i - 1].checkouts:
                branch = co.branch or "(no branch)"
                # a root's newline would start a forged line, its ESC drive the terminal
                where = visible(f"  {co.root}  {branch}")
                lines.append(f"{where}  indexed {_when(co.indexed_at)}")
            not_read = unread.summary(unread.decode(repos[i - 1].files_unread))
            if not_read:
                lines.append(f"  {not_read}")
    n_co = sum(len(r.checkouts) for r in repos)
    size = status.database_bytes(db)
    lines.append("")
    lines.append(
        f"{len(repos)} repositories, {n_co} checkouts, {sum(r.files for r in repos)} files, "
        f"{sum(r.symbols for r in repos)} symbols; index {visible(str(db))} {_size(size)}"
        " (with WAL)"
    )
    records = [_repo_json(r, "damaged" if r.id in found.damaged else r.status) for r in repos]
    problems = [*broken, *found.problems]
    printer.write(
        out, Output({"index": str(db), "bytes": size}, records, lines, tail={"problems": problems})
    )
    out.flush()
    for p in found.problems:
        say(f"{p}")
    if broken:
        more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
        raise RqError(
            f"the index {db} failed SQLite's quick check: {broken[0]}{more} (rq --check lists them)",
            ExitCode.IOERR,
        )
    return int(ExitCode.OK)


def _repo_json(r: RepoRow, coverage: str) -> dict[str, object]:
    """A repository of `rq --status --json`: the table's row, its checkouts and the files
    not read, with exact values (times as Unix seconds, null when never)."""
    from rq_engine.lang import unread

    return {
        "repository": r.identity,
        "coverage": coverage,
        "files": r.files,
        "symbols": r.symbols,
        "skipped": r.files_skipped or 0,
        "failed": r.files_failed or 0,
        "updated_at": r.updated_at,
        "checkouts": [
            {"root": c.root, "branch": c.branch, "indexed_at": c.indexed_at} for c in r.checkouts
        ],
        "not_read": unread.decode(r.files_unread),
    }
