"""Fixtures for the text ranker tests: real SQLite index files filled with real rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rq_engine.store import db


@pytest.fixture(autouse=True)
def cache_built_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query that finds no cache builds it in its own process (not a detached child),
    so each answer says which rung of the cache ladder served it. The detached build
    has its own test (test_cli_text.py)."""
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "0")


# (path, language, [(name, kind, parent, line, end_line)])
FileSpec = tuple[str, str, list[tuple[str, str, str | None, int, int | None]]]


def fill_index(
    path: Path, identity: str, files: list[FileSpec], root: Path | None = None
) -> sqlite3.Connection:
    """Insert a repository, its checkout, files and symbols into a real index database."""
    conn = db.connect(path)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO repositories(identity, created_at, updated_at) VALUES (?, 0, 0)", (identity,)
    )
    rid = conn.execute("SELECT id FROM repositories WHERE identity = ?", (identity,)).fetchone()[0]
    if root is not None:
        conn.execute(
            "INSERT INTO checkouts(repository_id, root_path) VALUES (?, ?)", (rid, str(root))
        )
    for fpath, lang, syms in files:
        cur = conn.execute(
            "INSERT INTO files(repository_id, path, language) VALUES (?, ?, ?)", (rid, fpath, lang)
        )
        fid = cur.lastrowid
        for name, kind, parent, line, end_line in syms:
            conn.execute(
                "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language,"
                " line, end_line, parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (rid, fid, name, name.lower(), kind, lang, line, end_line, parent),
            )
    conn.execute("COMMIT")
    return conn
