"""The Searcher over a real store filled by the real indexer from real git repositories."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.indexer import index_under
from rq_engine.search.pipeline import Searcher
from rq_engine.search.render import hit_to_json
from rq_engine.search.types import Batch, CancelToken
from rq_engine.store.db import connect
from tests.conftest import Repo

SHAPES = """\
class Shape:
    def area(self):
        return 0


class RefundProcessor(Shape):
    def __init__(self, amount):
        self.amount = amount

    def process_refund(self):
        return self.amount


class NoCtor:
    def run(self):
        pass


class BaseManager:
    def get_queryset(self):
        return []


class Manager(BaseManager):
    pass


def render_to_string(template):
    return template


def select_related():
    pass


def _private_helper():
    pass
"""


@pytest.fixture
def store(make_repo: Callable[..., Repo]) -> tuple[sqlite3.Connection, Repo]:
    repo = make_repo(
        {
            "pkg/shapes.py": SHAPES,
            "tests/test_shapes.py": "class RefundProcessor:\n    pass\n",
            "pkg/symbol.py": "class Symbol:\n    pass\n\n\nclass Table:\n    def symbol(self):\n        pass\n",
        }
    )
    conn = connect()
    index_under(conn, repo.root)
    return conn, repo


def final(s: Searcher, q: str, limit: int = 20) -> Batch:
    batches = list(s.search(q, limit=limit))
    assert batches and batches[-1].final
    assert all(not b.final for b in batches[:-1])
    return batches[-1]


def top(s: Searcher, q: str) -> list[str]:
    return [f"{h.path}:{h.line}" for h in final(s, q).hits]


def test_state_and_repository(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root / "pkg")
    assert s.state == "complete"
    assert s.repository == f"local:{repo.root.resolve()}"


def test_exact_canonical_before_test_copy(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    assert top(Searcher(conn, repo.root), "RefundProcessor")[:2] == [
        "pkg/shapes.py:6",
        "tests/test_shapes.py:1",
    ]


def test_prefix_abbreviation_subsequence_typo_separators(
    store: tuple[sqlite3.Connection, Repo],
) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    for q in ("refundproc", "rp", "rfndprcssr", "rfdprcsr", "RefundProcesor", "RefundPorcessor"):
        assert top(s, q)[0] == "pkg/shapes.py:6", q
    assert top(s, "rendertostring")[0] == "pkg/shapes.py:28"
    assert top(s, "selcet_related")[0] == "pkg/shapes.py:32"


def test_case_decides_between_same_named_symbols(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    assert top(s, "Symbol")[0] == "pkg/symbol.py:1"
    assert final(s, "Symbol").hits[0].kind == "class"


def test_scoped_queries(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    assert top(s, "Shape.area") == ["pkg/shapes.py:2"]
    assert top(s, "Shape::area") == ["pkg/shapes.py:2"]
    # inherited: declared on BaseManager, which sits beside Manager
    assert top(s, "Manager.get_queryset")[0] == "pkg/shapes.py:20"
    # a scope typo is forgiven on retry
    assert top(s, "Shpae.area")[0] == "pkg/shapes.py:2"


def test_constructor_and_constructor_owner(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    ctor = final(s, "RefundProcessor.new").hits[0]
    assert (ctor.name, ctor.line) == ("__init__", 7)
    owner = final(s, "NoCtor.new").hits
    assert [(h.name, h.line) for h in owner] == [("NoCtor", 14)]
    parts = dict(owner[0].score.parts)
    # 0.75 confidence: the owner answers at three quarters of an exact match
    assert parts["constructor_owner"] == -0.25 * parts["exact"]


def test_positions_mark_matched_letters(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    h = final(Searcher(conn, repo.root), "rp").hits[0]
    assert h.name == "RefundProcessor"
    assert [h.name[i] for i in h.positions] == ["R", "P"]


def test_miss_is_empty_final_batch(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    b = final(Searcher(conn, repo.root), "Zebra")
    assert b.hits == [] and b.state == "complete"


def test_strong_exact_ends_the_pipeline_in_one_batch(
    store: tuple[sqlite3.Connection, Repo],
) -> None:
    conn, repo = store
    batches = list(Searcher(conn, repo.root).search("Shape"))
    assert len(batches) == 1 and batches[0].final
    top = batches[0].hits[0]
    assert (top.name, "exact") == ("Shape", top.score.parts[0][0])


def test_cancel_stops_without_raising(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    tok = CancelToken()
    it = Searcher(conn, repo.root).search("refundproc", cancel=tok)
    first = next(it)
    assert not first.final
    tok.cancel()
    assert list(it) == []


def test_limit_and_stable_ties(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    a = final(s, "RefundProcessor", limit=1).hits
    assert len(a) == 1
    again = [(h.path, h.line) for h in final(s, "r").hits]
    assert again == [(h.path, h.line) for h in final(s, "r").hits]


def test_results_stay_in_the_current_repository(
    make_repo: Callable[..., Repo], store: tuple[sqlite3.Connection, Repo]
) -> None:
    conn, repo = store
    other = make_repo({"x.py": "class RefundProcessor:\n    pass\n"}, name="other")
    index_under(conn, other.root)
    here = top(Searcher(conn, other.root), "RefundProcessor")
    assert here == ["x.py:1"]
    everywhere = final(Searcher(conn, other.root, all_repos=True), "RefundProcessor").hits
    assert {h.root for h in everywhere} == {str(repo.root.resolve()), str(other.root.resolve())}


def test_hit_to_json_shape(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    h = final(Searcher(conn, repo.root), "Shape.area").hits[0]
    obj = hit_to_json(h, str(repo.root / "pkg"), explain=True)
    assert obj["path"] == "shapes.py"
    assert obj["qualified"] == "Shape.area"
    assert obj["kind"] == "method" and obj["language"] == "python"
    assert set(obj) == {
        "path",
        "line",
        "end_line",
        "name",
        "qualified",
        "kind",
        "language",
        "repository",
        "score",
        "explain",
    }
    explain = obj["explain"]
    assert isinstance(explain, list)
    assert abs(sum(p["value"] for p in explain) - float(str(obj["score"]))) < 0.05


def test_derived_names_follow_edits(
    store: tuple[sqlite3.Connection, Repo],
) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    assert top(s, "NoCtr") and top(s, "NoCtr")[0] == "pkg/shapes.py:14"
    repo.write("pkg/shapes.py", SHAPES.replace("NoCtor", "Brandnew"))
    repo.commit("rename")
    index_under(conn, repo.root)
    names = {r[0] for r in conn.execute("SELECT name FROM names")}
    assert "Brandnew" in names and "NoCtor" not in names
    assert conn.execute("SELECT count(*) FROM names_pending").fetchone()[0] == 0
    s = Searcher(conn, repo.root)
    assert top(s, "Brandnwe")[0] == "pkg/shapes.py:14"  # a near miss of the new name
    assert not top(s, "NoCtr")


def test_migration_backfills_names_from_existing_symbols(tmp_path: Path) -> None:
    from rq_engine.store import migrations, schema

    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    schema.migrate(conn, migrations.STEPS[:1])
    conn.execute(
        "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (1, 'x', 0, 0)"
    )
    conn.execute("INSERT INTO files(id, repository_id, path) VALUES (1, 1, 'a.py')")
    conn.execute(
        "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
        " VALUES (1, 1, 'ValidationError', 'validationerror', 'class', 'python', 1)"
    )
    schema.migrate(conn)
    row = conn.execute(
        "SELECT fold, skel, ini FROM names WHERE name = 'ValidationError'"
    ).fetchone()
    assert row == ("validationerror", "vldtnrrr", "ve")
    assert conn.execute("SELECT count(*) FROM names_pending").fetchone() == (0,)  # all applied
