"""The store: a fresh database migrates to exactly the expected schema, in WAL mode."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rq_engine.core.namekeys import name_keys
from rq_engine.store import migrations, schema
from rq_engine.store.db import connect

EXPECTED_TABLES = {
    "repositories",
    "checkouts",
    "files",
    "symbols",
    "symbols_fts",
    "coverage",
    "usage_daily",
    "meta",
    "schema_migrations",
}


def _schema(conn: sqlite3.Connection) -> dict[str, str]:
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'symbols_fts_%' "
        "OR type = 'trigger' ORDER BY name"
    )
    return {name: " ".join(sql.split()) for name, sql in rows}


def test_fresh_database_schema(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert EXPECTED_TABLES <= names
    applied = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]
    assert applied == [name for name, _ in migrations.STEPS]
    cols = {r[1] for r in conn.execute("PRAGMA table_info(symbols)")}
    assert {
        "name",
        "name_lower",
        "kind",
        "visibility",
        "language",
        "line",
        "end_line",
        "parent",
    } <= cols
    idx = {r[1] for r in conn.execute("PRAGMA index_list(symbols)")}
    assert {"idx_symbols_repo_name", "idx_symbols_file"} <= idx
    # m014: every read by name names its repository; the name-only index only cost writes
    assert "idx_symbols_name_lower" not in idx
    fts_sql = conn.execute("SELECT sql FROM sqlite_master WHERE name='symbols_fts'").fetchone()[0]
    assert "trigram" in fts_sql and "detail=none" in fts_sql and "content='symbols'" in fts_sql
    cov = conn.execute("SELECT sql FROM sqlite_master WHERE name='coverage'").fetchone()[0]
    assert "'never', 'warming', 'complete'" in cov


def test_migrating_twice_is_a_no_op(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    first = _schema(connect(db))
    assert schema.migrate(connect(db)) == []
    assert _schema(connect(db)) == first


def test_upgrade_from_older_step_keeps_data(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    conn = sqlite3.connect(db, isolation_level=None)
    schema.migrate(conn, migrations.STEPS[:1])
    conn.execute(
        "INSERT INTO repositories(identity, created_at, updated_at) VALUES ('local:/x', 1, 1)"
    )
    conn.close()
    conn = connect(db)  # applies every later step
    assert conn.execute("SELECT identity FROM repositories").fetchall() == [("local:/x",)]
    assert len(schema.applied(conn)) == len(migrations.STEPS)


def test_an_upgraded_store_keys_its_names_with_todays_code(tmp_path: Path) -> None:
    """A store from before the names table (the first step only) holding symbols: the
    upgrade queues every name and keys it once, after the last step, as the current
    code does (no migration runs its own era's key functions)."""
    db = tmp_path / "index.db"
    conn = sqlite3.connect(db, isolation_level=None)
    schema.migrate(conn, migrations.STEPS[:1])
    conn.execute(
        "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (1, 'r', 0, 0)"
    )
    conn.execute("INSERT INTO files(id, repository_id, path) VALUES (1, 1, 'a.py')")
    for i, name in enumerate(("RefundProcessor", "refund_order", "HTTPServer")):
        conn.execute(
            "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
            " VALUES (1, 1, ?, ?, 'class', 'python', ?)",
            (name, name.lower(), i + 1),
        )
    conn.close()
    conn = connect(db)  # applies every later step
    got = {r[0]: tuple(r[1:]) for r in conn.execute("SELECT name, fold, skel, ini FROM names")}
    assert got == {n: name_keys(n) for n in ("RefundProcessor", "refund_order", "HTTPServer")}
    assert conn.execute("SELECT count(*) FROM names_pending").fetchone()[0] == 0


def test_an_upgrade_rekeys_names_beyond_ascii_with_the_one_word_rule(tmp_path: Path) -> None:
    """A store from before the one word-start rule (m012) holds initials the old rule
    gave: `用户Name` was one word (`用`), `naïve` spelt with a combining mark two. The
    upgrade keys those names again with today's rule; ASCII names are left as stored."""
    db = tmp_path / "index.db"
    conn = sqlite3.connect(db, isolation_level=None)
    before = [s for s in migrations.STEPS if s[0] < "m012_word_starts"]
    schema.migrate(conn, before)
    conn.execute(
        "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (1, 'r', 0, 0)"
    )
    conn.execute("INSERT INTO files(id, repository_id, path) VALUES (1, 1, 'a.py')")
    old = {"用户Name": "用", "nai\u0308ve": "nv", "HTTPServer": "hs"}
    for i, name in enumerate(old):
        conn.execute(
            "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
            " VALUES (1, 1, ?, ?, 'class', 'python', ?)",
            (name, name.lower(), i + 1),
        )
    from rq_engine.store import derived

    derived.drain(conn)
    for name, ini in old.items():  # what the rule before m012 stored
        conn.execute("UPDATE names SET ini = ? WHERE name = ?", (ini, name))
    conn.close()
    conn = connect(db)  # applies m012 and every later step
    got = {r[0]: r[1] for r in conn.execute("SELECT name, ini FROM names")}
    assert got == {"用户Name": "用n", "nai\u0308ve": "n", "HTTPServer": "hs"}
    assert got == {n: name_keys(n)[2] for n in old}
    assert conn.execute("SELECT count(*) FROM names_pending").fetchone()[0] == 0


def test_fts_follows_symbols_through_triggers(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    conn.execute(
        "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (1, 'r', 0, 0)"
    )
    conn.execute("INSERT INTO files(id, repository_id, path) VALUES (1, 1, 'a.py')")
    conn.execute(
        "INSERT INTO symbols(id, repository_id, file_id, name, name_lower, kind, language, line) "
        "VALUES (7, 1, 1, 'RefundProcessor', 'refundprocessor', 'class', 'python', 3)"
    )
    hit = conn.execute(
        "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ?", ('"roc" AND "sor"',)
    ).fetchall()
    assert hit == [(7,)]
    conn.execute("DELETE FROM symbols WHERE id = 7")
    assert (
        conn.execute(
            "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ?", ('"roc" AND "sor"',)
        ).fetchall()
        == []
    )


def test_readonly_open_of_missing_db_is_clear(tmp_path: Path) -> None:
    import pytest

    from rq_engine.core.errors import RqError

    with pytest.raises(RqError, match="no index"):
        connect(tmp_path / "missing.db", readonly=True)
