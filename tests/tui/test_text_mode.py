"""The picker's text mode (alt-t): words ranked by text-ranker/bm25-v1 over the persisted cache.

Driven headless with Textual's pilot over the real engine, a real indexed
repository and the real text query service; RQ_TEXT_CACHE_DETACH=0 builds the
cache in-process, so the first text query builds it and the next ones hit it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from rq_engine.search.types import CancelToken
from rq_tui.app import PickerApp
from rq_tui.history import RecentPicks
from rq_tui.session import SearchSession
from rq_tui.text_results import TextHit, TextResults
from rq_tui.widgets import location
from tests.conftest import Repo
from tests.tui.fixture import build_shop, build_warehouse
from tests.tui.test_pilot import drive, names, results, settle, status_text, toasts, until


@pytest.fixture
def shop(make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch) -> Repo:
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "0")
    return build_shop(make_repo)


def words(text: str) -> list[str]:
    """Pilot key names for typing `text` (a space is the `space` key)."""
    return ["space" if c == " " else c for c in text]


def answered(app: PickerApp, query: str) -> Callable[[], bool]:
    """The picker has drawn `query`'s final answer (the event the tests wait on)."""
    return lambda: app.picker.final_query == query and app.picker.settled == query


def explain_text(app: PickerApp) -> str:
    return str(app.picker.query_one("#explain").render())


def rows(app: PickerApp) -> list[str]:
    lst = results(app)
    return [lst.render_line(y).text.rstrip() for y in range(len(lst.hits))]


async def text_mode(pilot: Pilot[object], app: PickerApp) -> None:
    await pilot.press("alt+t")
    await until(pilot, lambda: app.picker.text_mode and "text" in status_text(app))


def test_alt_t_ranks_words_and_explains_the_text_score(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await pilot.press(*words("refund order"))
        await until(pilot, answered(app, "refund order"))
        await settle(pilot)
        hits = results(app).hits
        assert all(isinstance(h, TextHit) and h.layer == "text" for h in hits)
        assert [location(h, str(shop.root)) for h in hits] == [
            "shop/refunds.py:18",
            "shop/tests/test_refunds.py:4",
        ]
        # path:line, kind, qualified name, chain
        first, second = rows(app)
        assert first.split() == [
            "shop/refunds.py:18",
            "function",
            "refund_order",
            "in",
            "refunds.py",
        ]
        assert second.split()[:2] == ["…/test_refunds.py:4", "function"]  # (shortened)
        assert hits[1].chain == ("test_refunds.py",)  # (its row is cut before the chain)
        # the explain pane: the text ranker's breakdown of the selected row
        pane = explain_text(app)
        for part in ("score 5.7", "#1 function refund_order", "via text", "lexical", "structure"):
            assert part in pane, part
        assert "exact" in pane and "name spells 'refund order'" in pane  # a feature
        assert "coverage 100%" in pane and "length 13 vs average" in pane
        assert "refundorder  idf 2.85" in pane and "refund  idf" in pane  # the terms
        assert "name 3×1" in pane and "qualified 2×1" in pane  # each field's share
        await pilot.press("down")
        await settle(pilot)
        assert "#2 function test_refund_order_refunds_the_total" in explain_text(app)
        status = status_text(app)
        assert " text " in status and "cache hit" in status and "2 results" in status

    drive(app, script)


def test_alt_t_again_restores_symbol_search(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="refund order")

    async def script(pilot: Pilot[object]) -> None:
        symbol = names(app)
        assert symbol and not any(isinstance(h, TextHit) for h in results(app).hits)
        await text_mode(pilot, app)
        await until(
            pilot, lambda: bool(results(app).hits) and isinstance(results(app).hits[0], TextHit)
        )
        await pilot.press("alt+t")
        await until(
            pilot, lambda: not app.picker.text_mode and app.picker.settled == "refund order"
        )
        await settle(pilot)
        assert names(app) == symbol
        assert not any(isinstance(h, TextHit) for h in results(app).hits)
        assert " text " not in status_text(app) and "cache" not in status_text(app)
        assert "lexical" not in explain_text(app)

    drive(app, script)


def test_enter_and_marks_act_on_text_results_as_on_symbol_results(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="refund order", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await until(pilot, answered(app, "refund order"))
        await pilot.press("tab", "tab", "enter")  # mark both, open both

    outcome = drive(app, script)
    assert outcome is not None and outcome.code == 0
    assert outcome.printed == ["shop/refunds.py:18", "shop/tests/test_refunds.py:4"]


def test_enter_on_a_text_result_prints_its_path_and_line(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root / "shop", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await pilot.press(*words("order repository"), "enter")  # before the answer: waits

    outcome = drive(app, script)
    assert outcome is not None and outcome.printed == ["orders.py:12"]


def test_a_blank_text_query_shows_nothing(shop: Repo) -> None:
    svc = SearchSession(shop.root)
    try:
        found = svc.run_text("refund order", all_repos=False, limit=1, cancel=CancelToken())
    finally:
        svc.close()
    assert found is not None
    RecentPicks().add(found.hits)  # symbol mode lists it for an empty query
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        assert names(app)[0] == "refund_order"  # the recent pick (then the active files')
        await text_mode(pilot, app)
        await settle(pilot)
        assert results(app).hits == [] and app.picker.count is None
        await pilot.press("space", "space")
        await settle(pilot)
        assert results(app).hits == [] and rows(app) == []
        assert app.picker.note == "" and toasts(app) == []  # nothing to tell

    drive(app, script)


def test_no_answer_shows_the_services_reason(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="zzqx vvqy")

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await until(pilot, answered(app, "zzqx vvqy"))
        await until(pilot, lambda: "no good answer" in results(app).render_line(0).text)
        line = results(app).render_line(0).text
        assert "no node accounts for" in line
        assert "0 results" in status_text(app)

    drive(app, script)


def test_a_service_error_is_one_status_line_and_no_traceback(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="Refund")

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await until(pilot, lambda: bool(results(app).hits))
        await pilot.press("ctrl+u", "minus", "minus")  # no word at all: the service refuses it
        await until(pilot, lambda: "at least one word" in app.picker.note)
        await settle(pilot)
        assert results(app).hits == []
        assert "--text needs at least one word" in status_text(app)
        assert "Traceback" not in status_text(app) and "\n" not in app.picker.note
        assert app.is_running and toasts(app) == []  # the status line says it, once
        await pilot.press("backspace", "backspace", *"order")  # and it recovers
        await until(pilot, answered(app, "order"))
        assert app.picker.note == "" and names(app)[0] == "Order"

    drive(app, script)


class GatedSession(SearchSession):
    """The real session, recording each text query it is asked (`asked`: query, token),
    with the query `held` stopped at a gate the test opens.

    Past the gate the held query is asked of the real session with its own token
    (`answers`: None when the session dropped it) and then answered anyway, as by an
    engine that never looked at its token: the answer the picker gets back is late.
    """

    def __init__(self, cwd: Path, held: str) -> None:
        super().__init__(cwd)
        self.held = held
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.asked: dict[str, CancelToken] = {}
        self.answers: dict[str, TextResults | None] = {}
        self.late: TextResults | None = None

    def run_text(self, text: str, *, cancel: CancelToken, **kw: object) -> TextResults | None:
        self.asked[text] = cancel
        if text != self.held:
            found = super().run_text(text, cancel=cancel, **kw)  # type: ignore[arg-type]
            self.answers[text] = found
            return found
        self.waiting.set()
        self.gate.wait(30)
        self.late = super().run_text(text, cancel=CancelToken(), **kw)  # type: ignore[arg-type]
        self.answers[text] = super().run_text(text, cancel=cancel, **kw)  # type: ignore[arg-type]
        return self.late


def test_a_stale_text_answer_is_never_drawn(shop: Repo) -> None:
    session = GatedSession(shop.root, held="refund")
    app = PickerApp(cwd=shop.root, session=session)
    newer = ["refund_order", "test_refund_order_refunds_the_total"]

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await pilot.press(*"refund")
        await until(pilot, session.waiting.is_set)  # "refund" is held inside the engine
        await pilot.press(*words(" order"))
        await until(pilot, lambda: names(app) == newer and "refund order" in session.answers)
        session.gate.set()  # the held query now goes on, its token already cancelled
        await until(pilot, lambda: "refund" in session.answers)
        await pilot.pause()  # (its answer's message, and the frame after it)
        assert names(app) == newer
        await settle(pilot)  # (a stale answer drawn would leave "refund order" unanswered)
        assert session.asked["refund"].cancelled
        assert session.answers["refund"] is None  # the session dropped it
        # The late answer lists what "refund order" does not; none of it reached the screen.
        assert session.late is not None
        late = [h.name for h in session.late.hits]
        assert "RefundProcessor" in late and "RefundProcessor" not in newer
        assert names(app) == newer
        assert all("RefundProcessor" not in row for row in rows(app))

    drive(app, script)


def test_alt_a_in_text_mode_ranks_every_repository(
    shop: Repo, make_repo: Callable[..., Repo]
) -> None:
    warehouse = build_warehouse(make_repo)
    app = PickerApp(cwd=shop.root, query="refund restock")

    async def script(pilot: Pilot[object]) -> None:
        await text_mode(pilot, app)
        await until(pilot, answered(app, "refund restock"))
        assert "refund_restock" not in names(app)
        await pilot.press("alt+a")
        await until(pilot, lambda: "refund_restock" in names(app))
        hit = next(h for h in results(app).hits if h.name == "refund_restock")
        assert hit.repository == "github.com/acme/warehouse"
        assert hit.abspath == str(warehouse.root / "stock/levels.py")
        assert "all repositories" in status_text(app) and "cache off" in status_text(app)

    drive(app, script)
