"""What a keystroke makes the picker do besides searching: no screen layout for a typed letter,
no preview highlighted for rows about to be replaced.

(How long a keystroke takes is bench/tui_latency.py's to say; these pin the work
that was cut from it.) The searches here are held open until the next keystroke
cancels them, so every assertion is about the keystroke alone; waits are on
events (a frame painted with the typed text), never on durations.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual._compositor import ReflowResult
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from rq_engine.search.types import Batch, CancelToken
from rq_tui.app import PickerApp
from rq_tui.explain import ExplainPane
from rq_tui.session import SearchSession
from rq_tui.widgets import QueryInput
from tests.conftest import Repo
from tests.tui.fixture import build_shop
from tests.tui.test_pilot import SIZE, results, settle, until


class HeldSession(SearchSession):
    """The real session, except that a search after `held` is set never answers: it
    waits until its token is cancelled (a very slow engine, without timing). `asked`
    holds the token each held query was handed."""

    def __init__(self, cwd: Path) -> None:
        super().__init__(cwd)
        self.held = False
        self.asked: dict[str, CancelToken] = {}

    def run(
        self, query: str, *, cancel: CancelToken, on_batch: Callable[[Batch], None], **kw: object
    ) -> bool:
        if self.held:
            self.asked[query] = cancel
            while not cancel.wait(1.0):
                pass
            return False
        return super().run(query, cancel=cancel, on_batch=on_batch, **kw)  # type: ignore[arg-type]


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


def test_typing_a_letter_lays_nothing_out(shop: Repo) -> None:
    # Input's own value watcher set its virtual size (a layout reactive) to the text's
    # width: a reflow of the whole screen for every letter, before any result came.
    session = HeldSession(shop.root)
    app = PickerApp(cwd=shop.root, query="Order", session=session)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            picker = app.picker
            query = picker.query_one("#query", QueryInput)
            reflows: list[Size] = []
            painted = asyncio.Event()
            reflow, refresh = picker._compositor.reflow, picker._compositor_refresh

            def counted(parent: Widget, size: Size) -> ReflowResult:
                reflows.append(size)
                return reflow(parent, size)

            def watched() -> None:
                refresh()
                if query.value == "OrderRe":
                    painted.set()

            picker._compositor.reflow = counted  # type: ignore[method-assign]
            picker._compositor_refresh = watched  # type: ignore[method-assign]
            session.held = True
            await pilot.press("R", "e")
            await asyncio.wait_for(painted.wait(), 30)
            assert reflows == []
            assert [h.name for h in results(app).hits][:1] == ["Order"]  # (still "Order"'s)
            await until(pilot, lambda: "OrderRe" in session.asked)
            session.asked["OrderRe"].cancel()  # the held search ends before the app does

    asyncio.run(go())


def test_a_keystroke_stops_the_preview_of_the_rows_it_replaces(shop: Repo) -> None:
    # The rows on screen are the previous query's: highlighting their source while the
    # new search runs took the GIL from it, for a preview nobody would see.
    session = HeldSession(shop.root)
    app = PickerApp(cwd=shop.root, query="Order", session=session)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            side = app.picker.query_one("#side", ExplainPane)
            side.follow(results(app).hits, 1, str(shop.root), results(app).version)
            assert side.preview_due is results(app).hits[1]  # the second row's source is due
            session.held = True
            await pilot.press("R")
            query = app.picker.query_one("#query", QueryInput)
            await until(pilot, lambda: query.value == "OrderR")
            assert side.preview_due is None
            await pilot.press("down")  # a row moved to is previewed again (or shown from cache)
            moved_to = results(app).highlighted_hit
            shown = str(side.query_one("#preview", Static).render()).strip()
            assert side.preview_due is moved_to or (moved_to is not None and shown)
            await until(pilot, lambda: "OrderR" in session.asked)
            session.asked["OrderR"].cancel()  # the held search ends before the app does

    asyncio.run(go())
