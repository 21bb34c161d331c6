"""Derived name tables: a cold pass writes what the trigger-and-drain path would; drop leaves none.

The search layer reads `names` (fold/skeleton/initials; typo candidates are
probed against the fold). A cold pass writes them directly from keys its pool
workers computed; every other pass goes through the `names_pending` triggers
and the drain. Both must produce the same rows, and a dropped repository must
take all of its rows with it (m005).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.indexer import drop_repository, index_under
from rq_engine.store import derived, migrations
from rq_engine.store.db import connect
from tests.conftest import Repo
from tests.index.conftest import dump, fts_ok, truth

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
    from rq_engine.search.keys import name_keys

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
    migrations.migrate(conn, migrations.STEPS[:4])  # m001-m004: the released schema
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
    migrations.migrate(conn)
    assert {r[1] for r in derived_rows(conn)} == {"ValidationError"}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not tables & {"name_dels", "name_dels_pending"}
    # the trigger m006 rewrote still takes a dropped repository's names
    conn.execute("DELETE FROM symbols WHERE repository_id = 1")
    conn.execute("DELETE FROM files WHERE repository_id = 1")
    conn.execute("DELETE FROM repositories WHERE id = 1")
    assert conn.execute("SELECT count(*) FROM names").fetchone()[0] == 0


def test_a_worker_that_dies_fails_its_files_and_the_pass_ends(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"m{i:03}.py": f"def fn{i}():\n    pass\n" for i in range(60)}
    files["boom.py"] = "def boom():\n    pass\n"
    repo = make_repo(files)
    crash_on_boom(monkeypatch, exit_code=7)
    s = index_under(db, repo.root, workers=2)
    assert any("boom.py: parse worker died (exit code 7)" in e for e in s.errors)
    indexed = {r[0] for r in db.execute("SELECT path FROM files")}
    assert "boom.py" not in indexed
    # only the dead worker's chunk is lost (docs/INDEXING.md: a worker takes chunks of
    # at most 16 files); every other file is in
    assert len(indexed) + s.files_failed == 61 and 1 <= s.files_failed <= 16


def crash_on_boom(monkeypatch: pytest.MonkeyPatch, exit_code: int) -> None:
    """Make the Python plugin die like a segfaulting grammar on any file defining
    `boom` — through the plugin seam (registry.plugin(...).extract), which a forked
    parse worker inherits."""
    from rq_engine.lang import registry

    plugin = registry.plugin("python")
    real = plugin.extract

    def extract(source: bytes) -> object:
        if b"def boom" in source:
            os._exit(exit_code)
        return real(source)

    monkeypatch.setattr(plugin, "extract", extract)


def test_a_write_under_someone_elses_suspension_keeps_fts_and_names_whole(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rq_engine.index import fts

    first = make_repo({"a.py": "def first_name():\n    pass\n"}, name="first")
    index_under(db, first.root, workers=1)
    # a bulk pass elsewhere holds the triggers off…
    sus = fts.suspend(db)
    assert sus is not None
    # …while this process edits one repository and indexes another through no triggers:
    # each batch keeps FTS and the names whole itself, so nothing waits for a rebuild
    first.write("a.py", "def second_name():\n    pass\n")
    index_under(db, first.root, workers=1)
    other = make_repo({"b.py": "def other_name():\n    pass\n"}, name="other")
    index_under(db, other.root, workers=1)
    derived_whole(db)
    db.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
    assert {r[1] for r in derived_rows(db)} == {"second_name", "other_name"}
    fts.resume(db, sus)
    assert db.execute("SELECT count(*) FROM meta WHERE key LIKE 'fts_%'").fetchone() == (0,)
    derived_whole(db)
    assert {r[1] for r in derived_rows(db)} == {"second_name", "other_name"}
    fts_ok(db)


def test_a_pass_repaired_under_it_keeps_its_names(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    """Someone took the cold pass for dead and repaired it: what the pass writes after
    the repair (its symbols through the restored triggers, its names directly) must
    end whole, and its resume must not undo the repair."""
    from rq_engine.index import fts
    from rq_engine.store.writes import transaction
    from tests.conftest import rq_bin

    repo = make_repo({"a.py": "def early_name():\n    pass\n"})
    index_under(db, repo.root, workers=1)
    rid = int(db.execute("SELECT id FROM repositories").fetchone()[0])
    sus = fts.suspend(db)
    assert sus is not None
    cold = derived.ColdNames(rid)
    # Another rq takes this pass for dead: the marker's owner is stamped with another
    # process start time (what a reused pid looks like), so the next pass repairs.
    db.execute(
        "UPDATE meta SET value = json_set(value, '$.start', json_extract(value, '$.start') + 1)"
        " WHERE key = 'fts_suspended'"
    )
    other = subprocess.run(
        [*rq_bin(), "--index", str(repo.root)], capture_output=True, text=True, timeout=120
    )
    assert other.returncode == 0, other.stderr
    assert db.execute("SELECT count(*) FROM meta WHERE key = 'fts_suspended'").fetchone() == (0,)
    with transaction(db):  # the pass goes on: a batch with a new name
        fid = db.execute("SELECT id FROM files").fetchone()[0]
        db.execute(
            "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
            " VALUES (?, ?, 'late_name', 'late_name', 'function', 'python', 9)",
            (rid, fid),
        )
        cold.write(db, ["late_name"])
        fts.fill(db, sus, [fid])  # the restored trigger indexed the row: this must not again
    fts.resume(db, sus)
    derived.drain(db)
    derived_whole(db)
    fts_ok(db)
