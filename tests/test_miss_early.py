"""Outside the recheck window, a query whose name the index does not hold asks git first.

Such a query can only end in a miss or an answer without the exact name, and
outside the window both ask git what moved (search/service.py), so its `git
status` starts before the search and runs beside it. A name the index holds is
searched first and asks nothing inline on a hit; inside the window nothing is
asked before the search either. These run the query service in this process
(spying on the order of the search and the question: real git, real SQLite),
then the same cases as whole `rq` processes for what a user sees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from rq_engine.core.wait import Wait
from rq_engine.index.asking import Asking
from rq_engine.search.pipeline import Searcher
from rq_engine.search.service import QueryService
from tests.conftest import Repo, Run
from tests.test_warming import SRC, locs

OUTSIDE = {"RQ_WARM_RECHECK_MS": "0"}


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What a query did, in order: `ask` (git started), `abandon` (an unused question
    stopped), `search` (a pass through the layers)."""
    seen: list[str] = []
    start, abandon, search = Asking.start, Asking.abandon, Searcher.search

    def spied_start(*a: object, **k: object) -> object:
        seen.append("ask")
        return start(*a, **k)  # type: ignore[arg-type]

    def spied_abandon(self: Asking) -> None:
        if self.running is not None or self.listing is not None:
            seen.append("abandon")
        abandon(self)

    def spied_search(self: Searcher, *a: object, **k: object) -> Iterator[object]:
        seen.append("search")
        return search(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Asking, "start", staticmethod(spied_start))
    monkeypatch.setattr(Asking, "abandon", spied_abandon)
    monkeypatch.setattr(Searcher, "search", spied_search)
    return seen


def answer(repo: Repo, query: str) -> tuple[str, list[str]]:
    svc = QueryService(repo.root, source="test")
    try:
        a = svc.answer(query, limit=10, wait=Wait.for_face(None, False))
        return a.outcome, [f"{h.path}:{h.line}" for h in a.hits]
    finally:
        svc.close()


@pytest.fixture
def indexed(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    return repo


def test_outside_the_window_a_miss_asks_git_before_it_searches(
    indexed: Repo, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    assert answer(indexed, "ZebraNowhere") == ("miss", [])
    assert events[:2] == ["ask", "search"] and events.count("ask") == 1, events


def test_outside_the_window_a_name_the_index_holds_is_searched_first(
    indexed: Repo, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    assert answer(indexed, "Order")[1][:1] == ["app/models.py:1"]
    assert events == ["search"]  # the hand-off to the warmer comes after the answer


def test_scoped_and_path_queries_are_searched_first(
    indexed: Repo, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    for query in ("Order.new", "Nowhere.zebra", "app/models.py"):
        events.clear()
        answer(indexed, query)
        assert events[:1] == ["search"], (query, events)


def test_inside_the_window_a_miss_searches_before_it_asks(indexed: Repo, events: list[str]) -> None:
    assert answer(indexed, "ZebraNowhere") == ("miss", [])  # (settles a verdict)
    events.clear()
    assert answer(indexed, "ZebraNowhere") == ("miss", [])
    assert events == ["search", "ask"], events


def test_outside_the_window_an_edit_in_place_is_seen_by_an_early_question(
    indexed: Repo, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    with open(indexed.root / "lib/util.py", "a") as f:
        f.write("\ndef appended_in_place():\n    pass\n")
    assert answer(indexed, "appended_in_place") == ("hit", ["lib/util.py:4"])
    assert events[:2] == ["ask", "search"], events


def test_an_early_question_is_dropped_when_a_revalidated_file_brings_the_name(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    events: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The index holds `widgetx` only, so `widget` asks early; the search finds
    # `widgetx` in a file that changed, whose reindex brings `widget` itself: an
    # answer with the exact name, which needs no question after all.
    repo = make_repo({"a.py": "def widgetx():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    with open(repo.root / "a.py", "a") as f:
        f.write("\n\ndef widget():\n    pass\n")
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    outcome, hits = answer(repo, "widget")
    assert (outcome, hits[0]) == ("hit", "a.py:5"), hits
    assert events[0] == "ask" and "abandon" in events, events


# --- the same, as whole processes --------------------------------------------------------


def test_every_answer_outside_the_window_is_the_one_inside_it(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    with open(repo.root / "lib/util.py", "a") as f:
        f.write("\ndef appended_in_place():\n    pass\n")
    repo.write("app/refunds.py", "class RefundProcessor:\n    pass\n")
    (repo.root / "app/views.py").unlink()
    cases = {
        "appended_in_place": (0, ["lib/util.py:4"]),
        "RefundProcessor": (0, ["app/refunds.py:1"]),
        "order_view": (1, []),
        "ZebraNowhere": (1, []),
        "Order": (0, ["app/models.py:1"]),
        "slgify": (0, ["lib/util.py:1"]),
    }
    for query, want in cases.items():
        r = rq("-q", query, cwd=repo.root, env=OUTSIDE)
        assert (r.code, locs(r)[:1]) == want, (query, r.out, r.err)
        r = rq("-q", query, cwd=repo.root)
        assert (r.code, locs(r)[:1]) == want, (query, r.out, r.err)
