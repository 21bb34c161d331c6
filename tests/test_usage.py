"""Usage counters: what record() counts, that it never blocks or fails a search, and `rq --usage`."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from rq_engine.store.db import BUSY_TIMEOUT_MS, connect
from rq_engine.store.paths import index_db_path
from rq_engine.store.usage import OUTCOMES, UsageRow, flags_key, record, report
from tests.conftest import Run


def _rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT day, source, flags, searches, misses, warming, on_complete FROM usage_daily "
        "ORDER BY day, source, flags"
    ).fetchall()


def test_flags_key_is_sorted_deduplicated_and_empty_when_none() -> None:
    assert flags_key() == ""
    assert flags_key("", "") == ""
    assert flags_key("json") == "json"
    assert flags_key("no-wait", "json", "explain", "json") == "explain,json,no-wait"
    assert flags_key("explain", "json") == flags_key("json", "explain")
    with pytest.raises(ValueError):
        flags_key("a,b")


def test_outcomes_are_hit_miss_warming() -> None:
    assert OUTCOMES == ("hit", "miss", "warming")


def test_record_counts_searches_misses_warming_and_on_complete(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    day = "2024-05-01"
    record(conn, source="cli", flags="", outcome="hit", on_complete=True, day=day)
    record(conn, source="cli", flags="", outcome="miss", on_complete=True, day=day)
    record(conn, source="cli", flags="", outcome="warming", on_complete=False, day=day)
    record(conn, source="cli", flags="", outcome="hit", on_complete=False, day=day)
    # another flags set, source and day are buckets of their own
    record(conn, source="cli", flags="json", outcome="miss", on_complete=True, day=day)
    record(conn, source="mcp", flags="", outcome="hit", on_complete=True, day=day)
    record(conn, source="cli", flags="", outcome="warming", on_complete=False, day="2024-05-02")
    assert _rows(conn) == [
        ("2024-05-01", "cli", "", 4, 1, 1, 2),
        ("2024-05-01", "cli", "json", 1, 1, 0, 1),
        ("2024-05-01", "mcp", "", 1, 0, 0, 1),
        ("2024-05-02", "cli", "", 1, 0, 1, 0),
    ]
    assert not conn.in_transaction


def test_record_defaults_to_the_local_date(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    before = time.strftime("%Y-%m-%d")
    record(conn, source="cli", flags="", outcome="hit", on_complete=True)
    after = time.strftime("%Y-%m-%d")
    (day,) = conn.execute("SELECT day FROM usage_daily").fetchone()
    assert day in (before, after)


def test_record_rejects_an_unknown_outcome(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    with pytest.raises(ValueError, match="outcome"):
        record(conn, source="cli", flags="", outcome="absent", on_complete=True)
    assert _rows(conn) == []


def test_record_under_a_held_write_lock_drops_the_count_and_returns(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    conn = connect(db)
    record(conn, source="cli", flags="", outcome="hit", on_complete=True, day="2024-05-01")
    writer = connect(db)
    writer.execute("BEGIN IMMEDIATE")  # another process mid-batch holds the write lock
    try:
        record(conn, source="cli", flags="", outcome="miss", on_complete=True, day="2024-05-01")
        assert not conn.in_transaction
        # the short timeout was for the counter only; the connection's own is back
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    finally:
        writer.execute("ROLLBACK")
    assert _rows(conn) == [("2024-05-01", "cli", "", 1, 0, 0, 1)]
    # the connection is still usable: the next count lands
    record(conn, source="cli", flags="", outcome="miss", on_complete=True, day="2024-05-01")
    assert _rows(conn) == [("2024-05-01", "cli", "", 2, 1, 0, 2)]


def test_record_on_a_read_only_connection_is_silent(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    connect(db).close()
    ro = connect(db, readonly=True)
    record(ro, source="cli", flags="", outcome="hit", on_complete=True)
    assert _rows(ro) == []


def test_report_orders_newest_day_first_and_filters_by_days(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    today = date.today()
    old = (today - timedelta(days=10)).isoformat()
    record(conn, source="mcp", flags="", outcome="hit", on_complete=True, day=today.isoformat())
    record(conn, source="cli", flags="json", outcome="hit", on_complete=True, day=today.isoformat())
    record(conn, source="cli", flags="", outcome="hit", on_complete=True, day=today.isoformat())
    record(conn, source="cli", flags="", outcome="warming", on_complete=False, day=old)
    rows = report(conn)
    assert [(r.day, r.source, r.flags) for r in rows] == [
        (today.isoformat(), "cli", ""),
        (today.isoformat(), "cli", "json"),
        (today.isoformat(), "mcp", ""),
        (old, "cli", ""),
    ]
    assert rows[3] == UsageRow(old, "cli", "", 1, 0, 1, 0)
    assert [r.day for r in report(conn, days=1)] == [today.isoformat()] * 3
    assert len(report(conn, days=11)) == 4


# --- rq --usage ---------------------------------------------------------------------


def test_usage_without_an_index_says_so(rq: Callable[..., Run]) -> None:
    r = rq("--usage")
    assert r.code == 0, r.err
    assert r.out == f"no usage recorded yet (no index at {index_db_path()})\n"
    assert not index_db_path().exists()  # reading usage never creates an index


def _recorded() -> None:
    conn = connect(index_db_path())
    for outcome, complete in (("hit", True), ("hit", True), ("miss", True), ("warming", False)):
        record(
            conn, source="cli", flags="", outcome=outcome, on_complete=complete, day="2024-05-01"
        )
    record(
        conn,
        source="cli",
        flags=flags_key("json", "explain"),
        outcome="hit",
        on_complete=False,
        day="2024-05-02",
    )
    conn.close()


def test_usage_prints_an_aligned_table_and_keeps_misses_apart_from_warming(
    rq: Callable[..., Run],
) -> None:
    _recorded()
    r = rq("--usage")
    assert r.code == 0, r.err
    assert r.err == ""
    assert r.out.splitlines() == [
        "DAY         SOURCE  FLAGS         SEARCHES  MISSES  WARMING  ON-COMPLETE",
        "2024-05-02  cli     explain,json         1       0        0            0",
        "2024-05-01  cli     -                    4       1        1            3",
        "",
        "total: 5 searches; 33.3% miss rate (1 answered nothing of 3 on a complete index); "
        "1 answered nothing because the index was warming",
    ]


def test_usage_json_is_one_array_of_rows(rq: Callable[..., Run]) -> None:
    _recorded()
    r = rq("--usage", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out) == [
        {
            "day": "2024-05-02",
            "source": "cli",
            "flags": "explain,json",
            "searches": 1,
            "misses": 0,
            "warming": 0,
            "on_complete": 0,
        },
        {
            "day": "2024-05-01",
            "source": "cli",
            "flags": "",
            "searches": 4,
            "misses": 1,
            "warming": 1,
            "on_complete": 3,
        },
    ]


def test_usage_on_an_index_with_no_rows(rq: Callable[..., Run]) -> None:
    connect(index_db_path()).close()
    assert rq("--usage").out == "no usage recorded yet\n"
    assert json.loads(rq("--usage", "--json").out) == []


@pytest.mark.parametrize(
    "content", [b"this is not a database\n" * 200, b"SQLite format 3\x00" + b"\xff" * 4000]
)
def test_usage_on_a_garbage_index_is_one_line_and_exit_74(
    rq: Callable[..., Run], content: bytes
) -> None:
    db = index_db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(content)
    r = rq("--usage")
    assert r.code == 74
    assert r.out == ""
    assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: ")
    assert "Traceback" not in r.err


def test_usage_with_a_query_is_a_usage_error(rq: Callable[..., Run]) -> None:
    r = rq("--usage", "Order")
    assert r.code == 64
    assert len(r.err.splitlines()) == 1 and "--usage" in r.err
