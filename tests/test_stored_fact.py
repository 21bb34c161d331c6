"""A scoring feature on a new stored fact, added the way docs/ARCHITECTURE.md says:
its declaration in core/columns.py, its function in core/scoring/features.py's
COLUMN_FEATURES, its weight in WEIGHTS, and the plugin that sets it — nothing else.

The rq that has the feature is simulated the way test_reextract simulates an
upgrade: a `sitecustomize` makes those four edits before rq imports anything
else. The feature is a deprecation mark (a `# deprecated` line above a Python
definition) that sinks a definition below its namesake. Real rq processes, a
real git repository, a real index: the fact must reach the scorer through the
plugin, the parse workers, the writer, the migration and the search's read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from rq_engine.store.db import connect
from rq_engine.store.paths import index_db_path
from tests.conftest import Repo, Run, rq_running_first

STEP = "m900_test_deprecated"

# The four edits a newcomer makes, in the files they would make them in.
WITH_FEATURE = f"""
from rq_engine.core import columns  # core/columns.py: the declaration
columns.ADDED = (
    columns.Column("deprecated", "INTEGER NOT NULL DEFAULT 0", 0, {STEP!r}, ("python",)),
)
from rq_engine.core.scoring import features, weights

weights.WEIGHTS["deprecated"] = -300.0  # core/scoring/weights.py: its weight


def deprecated_feature(query, cand):  # core/scoring/features.py: the feature
    return [("deprecated", weights.WEIGHTS["deprecated"])] if cand.deprecated else []


features.COLUMN_FEATURES.append(deprecated_feature)

from rq_engine.lang import python  # the plugin that knows the fact

_extract = python.PythonPlugin.extract


def extract(self, source):
    syms = _extract(self, source)
    lines = source.splitlines()
    for s in syms:
        if s.line >= 2 and lines[s.line - 2].strip() == b"# deprecated":
            s.deprecated = 1
    return syms


python.PythonPlugin.extract = extract
"""

FILES = {
    # the same name twice: a tie that path order breaks (a_old.py first) until the
    # deprecation mark sinks the old one
    "a_old.py": "# deprecated\ndef fetch():\n    return 1\n",
    "b_new.py": "def fetch():\n    return 2\n",
    "lib.go": "package lib\n\nfunc Fetch() {}\n",
}


@pytest.fixture
def with_feature(tmp_path: Path) -> dict[str, str]:
    """The environment of an rq process that has the feature."""
    return rq_running_first(tmp_path, WITH_FEATURE)


def _first(run: Run) -> str:
    assert run.code == 0, run.err
    return run.out.splitlines()[0].split()[0]


def _breakdown(run: Run) -> dict[str, dict[str, float]]:
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    return {r["path"]: {p["feature"]: p["value"] for p in r["explain"]} for r in doc["results"]}


def test_a_fresh_index_carries_the_fact_to_the_score(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], with_feature: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    assert rq("--index", cwd=repo.root, env=with_feature).code == 0

    assert _first(rq("-q", "fetch", cwd=repo.root, env=with_feature)) == "b_new.py:1"
    parts = _breakdown(rq("-q", "--json", "--explain", "fetch", cwd=repo.root, env=with_feature))
    assert parts["a_old.py"]["deprecated"] == -300.0
    assert "deprecated" not in parts["b_new.py"]
    explain = rq("-q", "--explain", "fetch", cwd=repo.root, env=with_feature)
    assert "deprecated" in explain.out and "-300.0" in explain.out


def test_an_index_from_before_the_fact_gets_it_on_upgrade(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], with_feature: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    assert rq("--index", cwd=repo.root).code == 0  # today's rq: no such column
    assert _first(rq("-q", "fetch", cwd=repo.root)) == "a_old.py:2"

    # The upgraded rq adds the column under its named step and re-reads the Python
    # files (the declaration names them), so no `rq --index` is needed: the next
    # query reads them again before it answers.
    assert _first(rq("-q", "fetch", cwd=repo.root, env=with_feature)) == "b_new.py:1"
    # (read as plain SQLite: this process's rq does not know the step, and refuses)
    with closing(sqlite3.connect(index_db_path())) as conn:
        steps = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
        marked = conn.execute(
            "SELECT f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.deprecated"
        ).fetchall()
    assert steps[-1] == STEP
    assert marked == [("a_old.py",)]

    # An rq without the step now refuses the store rather than misread it (74).
    old = rq("-q", "fetch", cwd=repo.root)
    assert old.code == 74 and old.err.startswith("rq: ")


def test_without_a_declared_fact_the_store_has_no_extra_column(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(FILES)
    assert rq("--index", cwd=repo.root).code == 0
    with closing(connect()) as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(symbols)")]
    assert cols[-1] == "parent"  # m001's last: the declared facts come after it
