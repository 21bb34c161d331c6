"""Splitting a SQL script into statements, so a migration step runs inside its own
transaction (sqlite3's executescript would commit first). Stdlib only."""

from __future__ import annotations

from rq_engine.core.sqlite import sqlite3


def statements(script: str) -> list[str]:
    """Split a script into statements (sqlite3.complete_statement knows trigger bodies)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        if not buf and line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
