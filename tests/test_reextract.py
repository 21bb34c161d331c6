"""Re-extraction on upgrade: a `reextract` step makes the next pass re-parse a language.

"The old plugin did not emit constants" is simulated by deleting the Python
constants of a real index; the step plus a real `rq --index` must bring them
back without touching files of other languages.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from rq_engine.store import migrations, schema
from rq_engine.store.db import connect
from tests.conftest import Repo, Run, rq_running_first

STEP = "m999_test_python_reextract"
STEPS = [*migrations.STEPS, (STEP, migrations.reextract("python"))]

PY = {
    "net.py": "MAX_RETRIES = 3\n\n\ndef fetch_page():\n    return MAX_RETRIES\n",
    "conf.py": "DEFAULT_TIMEOUT: float = 2.5\n",
}
GO = {"srv.go": "package main\n\nconst DefaultPort = 80\n\nfunc Serve() {}\n"}

# The rq the step ships in knows it: rq processes run after the upgrade load it (an rq
# that does not know a step the store records takes the store for a newer rq's, and
# refuses it).
KNOWS_STEP = f"""
from rq_engine.store import migrations, schema
migrations.STEPS.append(({STEP!r}, migrations.reextract("python")))
"""


@pytest.fixture
def upgraded(tmp_path: Path) -> dict[str, str]:
    """The environment of an rq process that knows STEP."""
    return rq_running_first(tmp_path, KNOWS_STEP)


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    """The index of this test's RQ_HOME, as every rq process opens it."""
    with closing(connect()) as conn:
        yield conn


def _files(conn: sqlite3.Connection, language: str) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT id, repository_id, path, mtime, size, content_hash, indexed_at FROM files "
        "WHERE language = ? ORDER BY id",
        (language,),
    ).fetchall()


def _symbols(conn: sqlite3.Connection, language: str) -> list[tuple[object, ...]]:
    # Rewriting a file deletes and re-inserts its symbols, so unchanged ids mean
    # the file's rows were not rewritten.
    return conn.execute(
        "SELECT id, file_id, name, kind, line FROM symbols WHERE language = ? ORDER BY id",
        (language,),
    ).fetchall()


def _coverage(conn: sqlite3.Connection, repo: Repo) -> str:
    row = conn.execute(
        "SELECT c.status FROM coverage c JOIN checkouts k USING (repository_id) "
        "WHERE k.root_path = ?",
        (str(repo.root.resolve()),),
    ).fetchone()
    return str(row[0])


def _index_without_python_constants(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], db: sqlite3.Connection
) -> tuple[Repo, Repo]:
    """A mixed Python/Go repository and a Go-only one, indexed by a plugin that (as
    far as the index can tell) never emitted Python constants."""
    mixed = make_repo({**PY, **GO}, name="mixed")
    go_only = make_repo({"lib.go": "package lib\n\nconst Limit = 9\n"}, name="goonly")
    for repo in (mixed, go_only):
        assert rq("--index", cwd=repo.root).code == 0
    gone = db.execute("DELETE FROM symbols WHERE language = 'python' AND kind = 'constant'")
    assert gone.rowcount == 2
    assert rq("-q", "MAX_RETRIES", cwd=mixed.root).code == 1  # 1 = no match
    assert rq("-q", "DefaultPort", cwd=mixed.root).out.startswith("srv.go:3")
    return mixed, go_only


def test_reextract_brings_back_what_the_old_plugin_missed(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    db: sqlite3.Connection,
    upgraded: dict[str, str],
) -> None:
    mixed, go_only = _index_without_python_constants(make_repo, rq, db)
    go_files, go_symbols = _files(db, "go"), _symbols(db, "go")
    py_symbols = _symbols(db, "python")

    assert schema.migrate(db, STEPS) == [STEP]

    py_files = _files(db, "python")
    assert [(f[3], f[5]) for f in py_files] == [(None, ""), (None, "")]
    # The file on disk is unchanged, so the stored size still equals the stat: the
    # mtime alone must (and does, below) defeat the indexer's mtime+size skip.
    for f in py_files:
        assert f[4] == os.stat(mixed.root / str(f[2])).st_size
    assert _symbols(db, "python") == py_symbols  # old rows stay readable
    assert _files(db, "go") == go_files
    assert _coverage(db, mixed) == "warming"
    assert _coverage(db, go_only) == "complete"  # holds no Python file

    idx = rq("--index", cwd=mixed.root, env=upgraded)
    assert idx.code == 0
    assert "(2 new or changed," in idx.err  # the two Python files, not srv.go

    assert rq("-q", "MAX_RETRIES", cwd=mixed.root, env=upgraded).out.startswith("net.py:1")
    assert rq("-q", "DEFAULT_TIMEOUT", cwd=mixed.root, env=upgraded).out.startswith("conf.py:1")
    assert _coverage(db, mixed) == "complete"
    assert all(f[3] is not None and f[5] for f in _files(db, "python"))
    assert _files(db, "go") == go_files
    assert _symbols(db, "go") == go_symbols


def test_reextract_step_runs_once(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    db: sqlite3.Connection,
    upgraded: dict[str, str],
) -> None:
    mixed, _ = _index_without_python_constants(make_repo, rq, db)
    assert schema.migrate(db, STEPS) == [STEP]
    assert rq("--index", cwd=mixed.root, env=upgraded).code == 0
    after = _files(db, "python"), _coverage(db, mixed)

    # Recorded by name: a second upgrade (or any rq process) does not clear again.
    assert schema.migrate(db, STEPS) == []
    assert "(0 new or changed," in rq("--index", cwd=mixed.root, env=upgraded).err
    assert (_files(db, "python"), _coverage(db, mixed)) == after
    assert after[1] == "complete"


def test_reextract_needs_a_language() -> None:
    with pytest.raises(ValueError):
        migrations.reextract()


def test_an_index_from_before_a_language_existed_reads_its_files_after_the_upgrade(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """An index made before rq read Java and C held no row for such files and was
    complete; after the upgrade the next query finds their definitions (no --index)."""
    repo = make_repo(
        {
            **PY,
            "src/Ledger.java": "package acme;\n\npublic class LedgerEntry {\n}\n",
            "native/sum.c": "int checksum_block(int x) {\n    return x;\n}\n",
        }
    )
    assert rq("--index", str(repo.root)).code == 0
    with closing(connect()) as conn:  # as the old rq left it
        conn.execute("DELETE FROM files WHERE language IN ('java', 'c', 'cpp')")
        conn.execute("DELETE FROM schema_migrations WHERE name = 'm008_new_languages'")
        assert _coverage(conn, repo) == "complete"
    before = rq("-q", "--no-wait", "LedgerEntry", cwd=repo.root)
    assert before.code == 2  # not yet: the upgrade made the repository warming again
    r = rq("-q", "LedgerEntry", cwd=repo.root)
    assert r.code == 0 and r.out.startswith("src/Ledger.java:3")
    assert rq("-q", "checksum_block", cwd=repo.root).out.startswith("native/sum.c:1")
