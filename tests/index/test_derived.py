"""Derived name tables: a cold pass writes what the trigger-and-drain path would; drop leaves none.

The search layer reads `names` (fold/skeleton/initials; typo candidates are
probed against the fold). A cold pass writes them directly from keys its pool
workers computed; every other pass goes through the `names_pending` triggers
and the drain. Both must produce the same rows, and a dropped repository must
take all of its rows with it (m005).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.indexer import drop_repository, index_under
from rq_engine.store import derived, migrations, schema
from rq_engine.store.db import connect
from tests.conftest import Repo, Run
from tests.index.conftest import (
    dump,
    fts_ok,
    index_stopped_at,
    resumed,
    stopped,
    truth,
)

# docs/INDEXING.md: a pass with at least 200 files to parse takes the bulk (cold) path.
BULK_FILES = 200

# Names that exercise every key: camel humps, acronyms, digits, joiners, repeated
# letters, short names, a non-ASCII name.
FILES = {
    f"pkg/m{i:03}.py": (
        f"class HTTPServer{i}Handler:\n    def get_user_by_id(self):\n        pass\n\n"
        f"def parse{i}_v2_JSON():\n    pass\n\n"
        "def ab():\n    pass\n\n"
        f"def aaa_bbb_{i % 3}():\n    pass\n\n"
        "class Ünïcode:\n    pass\n\n"
        "def validation_error():\n    pass\n"
    )
    for i in range(BULK_FILES + 20)
}


def derived_rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    """names as search reads them (by name, not by row id)."""
    return sorted(conn.execute("SELECT repository_id, name, fold, skel, ini FROM names"))


def derived_whole(conn: sqlite3.Connection) -> None:
    """names holds exactly each repository's distinct symbol names, keyed right, and
    nothing is left queued."""
    from rq_engine.core.namekeys import name_keys

    names = derived_rows(conn)
    want = sorted(conn.execute("SELECT DISTINCT repository_id, name FROM symbols"))
    assert [(n[0], n[1]) for n in names] == want
    assert all(tuple(n[2:]) == name_keys(str(n[1])) for n in names)
    assert conn.execute("SELECT count(*) FROM names_pending").fetchone()[0] == 0


@pytest.mark.parametrize("workers", [1, 2])
def test_a_cold_pass_writes_what_the_drain_would(
    make_repo: Callable[..., Repo], isolated_home: Path, workers: int
) -> None:
    # the incremental path: the same files indexed in two passes, each below the bulk
    # threshold, so every row goes through the per-row triggers and the drain
    first = dict(sorted(FILES.items())[: BULK_FILES // 2])
    repo = make_repo(first)
    warm = connect(isolated_home / "warm.db")
    s = index_under(warm, repo.root, workers=workers)
    assert not s.cold and s.files_indexed == len(first)
    for rel, text in FILES.items():
        if rel not in first:
            repo.write(rel, text)
    s = index_under(warm, repo.root, workers=workers)
    assert not s.cold and s.files_indexed == len(FILES) - len(first)
    # the cold path: all of them in one pass, triggers suspended, names written from
    # the workers' keys
    cold = connect(isolated_home / "cold.db")
    s = index_under(cold, repo.root, workers=workers)
    assert s.cold and s.complete and s.files_indexed == len(FILES)
    assert dump(cold) == dump(warm) == truth(repo.root)
    names = derived_rows(cold)
    assert names == derived_rows(warm)
    assert {"HTTPServer7Handler", "Ünïcode", "ab"} <= {n[1] for n in names}
    derived_whole(cold)
    fts_ok(cold)
    # and an incremental pass on top of a cold one keeps them in step
    repo.write("pkg/m000.py", "def brand_new_name():\n    pass\n")
    (repo.root / "pkg" / "m001.py").unlink()
    index_under(cold, repo.root, workers=workers)
    index_under(warm, repo.root, workers=workers)
    assert derived_rows(cold) == derived_rows(warm)
    derived_whole(cold)


def test_drop_leaves_no_derived_rows(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    keep = make_repo({"k.py": "def keeper_function():\n    pass\n"}, name="keep")
    gone = make_repo(dict(sorted(FILES.items())[:40]), name="gone")
    index_under(db, keep.root, workers=1)
    s = index_under(db, gone.root, workers=2)
    before = derived_rows(db)
    assert drop_repository(db, gone.root) is not None
    names = derived_rows(db)
    assert {n[0] for n in names} == {1}
    assert [n for n in before if n[0] == 1] == names
    for table in ("names", "names_pending"):
        n = db.execute(f"SELECT count(*) FROM {table} WHERE repository_id = ?", (s.repository_id,))
        assert n.fetchone()[0] == 0, table
    # re-indexing reuses the freed ids
    index_under(db, gone.root, workers=2)
    derived_whole(db)


def test_m005_m006_remove_orphans_and_the_typo_key_tables(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    schema.migrate(conn, migrations.STEPS[:4])  # m001-m004: the released schema
    for rid, name in ((1, "ValidationError"), (2, "OrderLine")):
        conn.execute(
            "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (?, ?, 0, 0)",
            (rid, f"r{rid}"),
        )
        conn.execute("INSERT INTO files(id, repository_id, path) VALUES (?, ?, 'a.py')", (rid, rid))
        conn.execute(
            "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
            " VALUES (?, ?, ?, ?, 'class', 'python', 1)",
            (rid, rid, name, name.lower()),
        )
    derived.drain(conn)
    # the old drop: explicit deletes, the names rows go by FK cascade, then a drain
    conn.execute("DELETE FROM symbols WHERE repository_id = 2")
    conn.execute("DELETE FROM files WHERE repository_id = 2")
    conn.execute("DELETE FROM repositories WHERE id = 2")
    derived.drain(conn)
    # …which left the dropped repository's typo keys behind (the old drain wrote them)
    conn.execute("INSERT INTO name_dels(repository_id, key, name_id) VALUES (2, 7, 2)")
    schema.migrate(conn)
    assert {r[1] for r in derived_rows(conn)} == {"ValidationError"}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not tables & {"name_dels", "name_dels_pending"}
    # the trigger m006 rewrote still takes a dropped repository's names
    conn.execute("DELETE FROM symbols WHERE repository_id = 1")
    conn.execute("DELETE FROM files WHERE repository_id = 1")
    conn.execute("DELETE FROM repositories WHERE id = 1")
    assert conn.execute("SELECT count(*) FROM names").fetchone()[0] == 0


def bulk_files(n: int) -> dict[str, str]:
    """`n` files of FILES' shape: more than 256 make a bulk pass of at least two batches
    (its first batch holds at most 256 files: docs/INDEXING.md)."""
    text = next(iter(FILES.values()))
    return {f"big/m{i:03}.py": text.replace("HTTPServer0", f"Big{i}") for i in range(n)}


def test_writes_under_someone_elses_suspension_keep_fts_and_names_whole(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """A bulk pass holds the triggers off (stopped after its first batch); meanwhile
    other passes edit one repository and index another through no triggers: each
    batch keeps FTS and the names whole itself, so nothing waits for a rebuild."""
    first = make_repo({"a.py": "def first_name():\n    pass\n"}, name="first")
    assert rq("--index", str(first.root)).code == 0
    big = make_repo(bulk_files(300), name="big")
    p = index_stopped_at(big.root, "batch-committed")
    try:
        assert stopped(p), resumed(p)
        conn = connect()
        try:
            assert conn.execute(
                "SELECT count(*) FROM meta WHERE key = 'fts_suspended'"
            ).fetchone() == (1,)
        finally:
            conn.close()
        first.write("a.py", "def second_name():\n    pass\n")
        assert rq("--index", str(first.root)).code == 0
        other = make_repo({"b.py": "def other_name():\n    pass\n"}, name="other")
        assert rq("--index", str(other.root)).code == 0
        conn = connect()
        try:
            derived_whole(conn)
            conn.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
            names = {r[1] for r in derived_rows(conn)}
            assert {"second_name", "other_name"} <= names and "first_name" not in names
        finally:
            conn.close()
        for q, want in (("second_nme", "a.py:1"), ("other_nam", "b.py:1")):
            r = rq("-q", q, cwd=first.root if want == "a.py:1" else other.root)
            assert r.code == 0 and r.out.startswith(want), (q, r)
    finally:
        out, err = resumed(p)
    assert p.returncode == 0, err
    conn = connect()
    try:  # the bulk pass ended and gave the triggers back
        fts_ok(conn)
        derived_whole(conn)
        assert dump(conn) == sorted(truth(first.root) + truth(big.root) + truth(other.root))
    finally:
        conn.close()


def test_a_pass_repaired_under_it_keeps_its_names(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """Someone took a live bulk pass for dead and repaired it: what the pass writes after
    the repair (its symbols through the restored triggers, its names directly) must
    end whole, and its resume must not undo the repair."""
    repo = make_repo(bulk_files(300))
    p = index_stopped_at(repo.root, "batch-committed")
    try:
        assert stopped(p), resumed(p)
        conn = connect()
        try:
            # the pass has batches still to write after the repair below
            assert conn.execute("SELECT count(*) FROM files").fetchone()[0] < 300
            # what a reused pid looks like: the marker's owner, stamped with another
            # process start time, so the next pass takes it for dead and repairs
            conn.execute(
                "UPDATE meta SET value = json_set(value, '$.start',"
                " json_extract(value, '$.start') + 1) WHERE key = 'fts_suspended'"
            )
        finally:
            conn.close()
        other = rq("--index", str(repo.root))
        assert other.code == 0 and "Traceback" not in other.err, other.err
        conn = connect()
        try:
            assert conn.execute(
                "SELECT count(*) FROM meta WHERE key = 'fts_suspended'"
            ).fetchone() == (0,)
        finally:
            conn.close()
    finally:
        out, err = resumed(p)  # the pass goes on: its other batches, then its resume
    assert p.returncode == 0, err
    conn = connect()
    try:
        fts_ok(conn)
        derived_whole(conn)
        assert dump(conn) == truth(repo.root)
    finally:
        conn.close()
    r = rq("-q", "Big299Handlr", cwd=repo.root)  # a typo: the names table's keys
    assert r.code == 0 and r.out.startswith("big/m299.py:1  class  Big299Handler"), r
