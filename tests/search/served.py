"""A corpus of source files as a real, indexed git repository, answered through the
public QueryService (the seam the ranking tests go through)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rq_engine.core.wait import Wait
from rq_engine.search.service import QueryService
from rq_engine.search.types import Hit
from tests.conftest import git, rq_bin

Ask = Callable[[str], list[Hit]]


def served(base: Path, name: str, corpus: dict[str, str], limit: int) -> Iterator[Ask]:
    """Commit `corpus` in `base/name`, index it with a real `rq --index`, and yield a
    function answering a query with its complete hits (closing the service after)."""
    root = base / name
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in corpus.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "corpus")
    home = base / "home"
    env = {**os.environ, "RQ_HOME": str(home), "RQ_CACHE": str(base / "cache")}
    r = subprocess.run(
        [*rq_bin(), "--index", str(root)], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    service = QueryService(root, db_path=home / "index.db")

    def answer(query: str) -> list[Hit]:
        a = service.answer(query, limit=limit, wait=Wait(0))
        assert a.state == "complete", (query, a)
        return a.hits

    yield answer
    service.close()


def ask_fixture(tag: str, corpus: dict[str, str], limit: int) -> Any:
    """A module-scoped `ask` fixture answering from `corpus` served once for the module:
    `ask = ask_fixture("packages", CORPUS, 10)` in a test module."""

    @pytest.fixture(scope="module")
    def ask(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ask]:
        yield from served(tmp_path_factory.mktemp(tag), "repo", corpus, limit)

    return ask


def top(ask: Ask, query: str) -> tuple[str, int, str]:
    """The first hit's (path, line, kind): where a query sends the developer."""
    hits = ask(query)
    assert hits, f"no hit for {query!r}"
    return (hits[0].path, hits[0].line, hits[0].kind)


def explained(hit: dict[str, object]) -> dict[str, float]:
    """A `rq -q --json --explain` result's score parts, by feature name."""
    explain = hit["explain"]
    assert isinstance(explain, list)
    return {str(p["feature"]): float(p["value"]) for p in explain}
