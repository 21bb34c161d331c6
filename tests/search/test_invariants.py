"""Ranking invariants over a real SQLite store: order of insertion never changes the answer."""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rq_engine.core.wait import Wait
from rq_engine.index.indexer import index_under
from rq_engine.search.service import QueryService
from rq_engine.store.db import connect

NAMES = ["Order", "order", "OrderLine", "order_line", "make_order", "Ordre", "Border", "OrdersView"]
PATHS = ["a.py", "pkg/b.py", "tests/test_c.py", "pkg/sub/d.py"]

_rows = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(PATHS), st.integers(1, 30)),
    min_size=1,
    max_size=10,
    unique_by=lambda r: (r[1], r[2]),  # one definition a line
)


# one moment for every file and commit: recency must not tell the two stores apart
_WHEN = 1_700_000_000
_GIT_ENV = {
    **os.environ,
    "GIT_COMMITTER_DATE": f"{_WHEN} +0000",
    "GIT_AUTHOR_DATE": f"{_WHEN} +0000",
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=_GIT_ENV)


def _source(rows: list[tuple[str, str, int]], path: str) -> str:
    lines = ["# ..."] * 30
    for name, p, line in rows:
        if p == path:
            lines[line - 1] = f"class {name}: pass"
    return "\n".join(lines) + "\n"


def _indexed(root: Path, rows: list[tuple[str, str, int]], steps: int) -> Path:
    """A git repository holding `rows` as one-line classes, indexed by the real indexer
    in `steps` passes, each adding the next rows in the order given (so the store
    inserts them in that order); returns its store."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    db = root.parent / f"{root.name}.db"
    chunk = max(1, -(-len(rows) // steps))
    for i in range(0, len(rows), chunk):
        have = rows[: i + chunk]
        for path in {p for _, p, _ in have}:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(_source(have, path))
            os.utime(root / path, (_WHEN, _WHEN))
        _git(root, "add", "-A")
        _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", str(i))
        conn = connect(db)
        index_under(conn, root, workers=1)
        conn.close()
    return db


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=_rows,
    seed=st.randoms(use_true_random=False),
    query=st.sampled_from(["Order", "ordr", "order", "Ordre", "ol"]),
)
def test_ranking_is_deterministic_and_independent_of_insertion_order(
    tmp_path: Path, rows: list[tuple[str, str, int]], seed: random.Random, query: str
) -> None:
    shuffled = rows[:]
    seed.shuffle(shuffled)
    # tmp_path is shared by every example Hypothesis runs (and replays while shrinking)
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    results = []
    # the same repository, indexed at once and grown a row at a time in another order
    for i, (order, steps) in enumerate(((rows, 1), (shuffled, len(shuffled)))):
        root = base / f"r{i}"
        service = QueryService(root, db_path=_indexed(root, order, steps))
        try:
            got = [
                (h.path, h.line, h.name, h.score.total)
                for h in service.answer(query, limit=20, wait=Wait(0)).hits
            ]
            again = service.answer(query, limit=20, wait=Wait(0)).hits
        finally:
            service.close()
        assert got == [(h.path, h.line, h.name, h.score.total) for h in again]  # deterministic
        results.append(got)
    assert results[0] == results[1]
    totals = [t for *_, t in results[0]]
    assert totals == sorted(totals, reverse=True)
    # ties break by path, then line: a stable order a user can rely on
    for a, b in zip(results[0], results[0][1:], strict=False):
        if a[3] == b[3]:
            assert (a[0], a[1]) <= (b[0], b[1])
