"""Cold passes suspend the FTS triggers and fill the table once; a crash mid-pass is repaired."""

from __future__ import annotations

import signal
import sqlite3
from collections.abc import Callable

from rq_engine.index.indexer import index_under
from tests.conftest import Repo, Run
from tests.index.conftest import dump, fts_ok, truth

# docs/INDEXING.md: a pass with at least 200 files to parse takes the bulk (cold) path.
BULK_FILES = 200


def _match(conn: sqlite3.Connection, trigram: str) -> set[str]:
    return {
        r[0]
        for r in conn.execute(
            "SELECT s.name FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid "
            "WHERE symbols_fts MATCH ?",
            (trigram,),
        )
    }


def _repo(make_repo: Callable[..., Repo], n: int, name: str = "repo") -> Repo:
    files = {
        f"m{i:03}.py": f"class Widget{i}:\n    def spin{i}(self):\n        pass\n" for i in range(n)
    }
    return make_repo(files, name=name)


def test_cold_pass_fills_fts_once_and_restores_triggers(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    other = _repo(make_repo, 12, "other")
    index_under(db, other.root, workers=1)  # a second repository already in the FTS table
    n = BULK_FILES + 10
    repo = make_repo({f"n{i:03}.py": f"def gadget{i}():\n    pass\n" for i in range(n)}, name="r2")
    s = index_under(db, repo.root, workers=1)
    assert s.cold and s.complete and s.files_indexed == n
    fts_ok(db)
    assert _match(db, "gad") == {f"gadget{i}" for i in range(n)}
    assert len(_match(db, "idg")) == 12  # the other repository's rows are intact
    # the next, incremental pass goes through the triggers again
    repo.write("n000.py", "def doohickey():\n    pass\n")
    s = index_under(db, repo.root, workers=1)
    assert not s.cold
    assert _match(db, "hic") == {"doohickey"} and "gadget0" not in _match(db, "gad")
    fts_ok(db)


def test_a_writer_killed_mid_cold_pass_is_repaired_by_the_next_pass(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, rq: Callable[..., Run]
) -> None:
    n = BULK_FILES + 10
    repo = _repo(make_repo, n)
    # A real rq --index suspends the triggers, commits a batch, and dies without
    # restoring them (RQ_INDEX_KILL_AT: rq_engine/index/crashpoints.py).
    r = rq("--index", str(repo.root), env={"RQ_INDEX_KILL_AT": "batch-committed"})
    assert r.code == -signal.SIGKILL, r.err
    assert db.execute(
        "SELECT count(*) FROM sqlite_master WHERE type='trigger' AND name LIKE 'symbols_fts_%'"
    ).fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM meta WHERE key = 'fts_suspended'").fetchone() == (1,)
    # every committed batch filled FTS for its own rows: fuzzy recall already sees them
    committed = {r[0] for r in db.execute("SELECT name FROM symbols WHERE kind = 'class'")}
    assert committed
    assert _match(db, "dge") == committed
    s = index_under(db, repo.root, workers=1)  # the committed files are not re-read
    assert (s.files_unchanged, s.files_indexed) == (len(committed), n - len(committed))
    fts_ok(db)
    assert _match(db, "dge") == {f"Widget{i}" for i in range(n)}
    assert dump(db) == truth(repo.root)


def test_a_big_change_to_an_indexed_repository_takes_the_bulk_path(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    """A pull or a checkout that rewrites hundreds of files suspends the per-row
    triggers too: every batch takes the old rows out of FTS and the names, puts the
    new ones in, and the result equals a clean index."""
    from tests.index.test_derived import derived_whole

    repo = _repo(make_repo, 260)
    assert index_under(db, repo.root, workers=2).cold
    for i in range(230):  # rewritten: every old name goes, new ones come
        repo.write(f"m{i:03}.py", f"class Gadget{i}:\n    def whirl{i}(self):\n        pass\n")
    for i in range(230, 245):
        (repo.root / f"m{i:03}.py").unlink()
    repo.write("extra.py", "def brand_new():\n    pass\n")
    s = index_under(db, repo.root, workers=2)
    assert s.cold and s.complete and s.files_deleted == 15
    fts_ok(db)
    derived_whole(db)
    assert dump(db) == truth(repo.root)
    assert _match(db, "dge") == {f"Gadget{i}" for i in range(230)} | {
        f"Widget{i}" for i in range(245, 260)
    }
    names = {r[0] for r in db.execute("SELECT name FROM names")}
    assert "Widget0" not in names and "Gadget0" in names and "brand_new" in names
