"""The picker driven headless with Textual's pilot, over the real engine and a real indexed repo."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual.worker import WorkerState

from rq_engine.index.indexer import index_under
from rq_engine.search.types import Batch, CancelToken
from rq_engine.store.db import connect
from rq_tui.app import NEVER, Outcome, PickerApp, finish
from rq_tui.help import HelpScreen
from rq_tui.results import ResultList
from rq_tui.session import SearchSession
from rq_tui.widgets import location
from tests.conftest import Repo
from tests.tui.fixture import build_shop, build_warehouse, seed_only

SIZE = (120, 30)


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


async def until(pilot: Pilot[object], cond: Callable[[], bool], timeout: float = 30) -> None:
    """Let the app run until `cond` holds (an event the test waits on, not a duration)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "the picker never got there"
        await pilot.pause(0.02)  # (a poll of `cond`, not a wait for something to be done)


def still_due(app: PickerApp) -> str:
    """What the picker has yet to show on its own ("" when nothing): a worker pending or
    running, the answer to the query as typed (or a failure's note), a miss's "no
    matches" once its delay is over, the highlighted hit's source in the side pane."""
    picker = app.picker
    busy = [w.name for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
    if busy:
        return f"workers {busy}"
    typed = picker.query_one("#query", Input).value
    if picker.settled != typed and not picker.note:
        return f"the answer to {typed!r}"  # (before the first search, or not drawn yet)
    lst = results(app)
    if picker.count == 0 and lst.hits:
        return "no matches"  # (the old rows stay until it replaces them)
    side = picker.query_one("#side")
    hit = lst.highlighted_hit
    if hit is None or not side.display:
        return ""
    title = str(side.query_one("#preview-title", Static).render())
    source = str(side.query_one("#preview", Static).render())
    if title != location(hit, picker.cwd) or not source.strip():
        return f"the source of {location(hit, picker.cwd)}"
    return ""


async def settle(pilot: Pilot[object]) -> None:
    """Wait until nothing is due (`still_due`) and the screen shows it."""
    app = pilot.app
    assert isinstance(app, PickerApp)
    loop = asyncio.get_running_loop()
    end = loop.time() + 30
    while due := still_due(app):
        assert loop.time() < end, f"the picker never came to rest: waiting for {due}"
        await pilot.pause(0.02)  # (a poll)
    await pilot.pause()  # the messages the workers left queued, and the frame after them
    if still_due(app):
        await settle(pilot)  # (a queued batch started something new: wait for it too)


def toasts(app: PickerApp) -> list[str]:
    """The notifications on screen (Textual draws each as a Toast widget)."""
    return [str(t.render()) for t in app.screen.query("Toast")]


def status_text(app: PickerApp) -> str:
    return str(app.picker.query_one("#status").render())


def drive(app: PickerApp, script: Callable[[Pilot[object]], Awaitable[None]]) -> Outcome | None:
    async def go() -> Outcome | None:
        async with app.run_test(size=SIZE, notifications=True) as pilot:  # (toasts drawn)
            await settle(pilot)
            await script(pilot)
        return app.return_value

    return asyncio.run(go())


def results(app: PickerApp) -> ResultList:
    return app.picker.query_one("#results", ResultList)


def names(app: PickerApp) -> list[str]:
    return [h.name for h in results(app).hits]


# --- searching ---------------------------------------------------------------


@dataclass
class Asked:
    """One search the picker asked of the session: the query, the token it handed over,
    each batch the engine yielded back (layer, names, final), and what `run` returned
    (None while it runs)."""

    query: str
    cancel: CancelToken
    yielded: list[tuple[str, list[str], bool]] = field(default_factory=list)
    completed: bool | None = None


class RecordingSession(SearchSession):
    """The real session and engine, recording each search the picker asks for (`asked`,
    oldest first).

    `stepped`: a gate after each non-final batch. A search stopped at the gate resumes
    when its token is cancelled (the next keystroke) or when the test opens the gate:
    a slow engine without timing. `withhold`: the batches of this query are kept back
    (`withheld`) until the test hands them over with `hand_withheld`, as from an engine
    that answers late and never looked at its token.
    """

    def __init__(self, cwd: Path, *, stepped: bool = False, withhold: str | None = None) -> None:
        super().__init__(cwd)
        self.stepped = stepped
        self.withhold = withhold
        self.gate = threading.Event()
        self.asked: list[Asked] = []
        self.withheld: list[tuple[Callable[[Batch], None], Batch]] = []

    def run(
        self, query: str, *, cancel: CancelToken, on_batch: Callable[[Batch], None], **kw: object
    ) -> bool:
        asked = Asked(query, cancel)
        self.asked.append(asked)

        def handed(batch: Batch) -> None:
            asked.yielded.append((batch.layer, [h.name for h in batch.hits], batch.final))
            if query == self.withhold:
                self.withheld.append((on_batch, batch))
                return
            on_batch(batch)
            if self.stepped and not batch.final:
                while not (cancel.cancelled or self.gate.is_set()):
                    self.gate.wait(0.01)

        asked.completed = super().run(query, cancel=cancel, on_batch=handed, **kw)  # type: ignore[arg-type]
        return asked.completed

    def queries(self) -> list[str]:
        return [a.query for a in self.asked]

    def hand_withheld(self) -> None:
        for on_batch, batch in self.withheld:
            on_batch(batch)


TYPED = ["R", "Re", "Ref", "Refu", "Refun"]  # the queries of typing "Refun"


def test_typing_five_characters_fast_cancels_the_earlier_searches(shop: Repo) -> None:
    session = RecordingSession(shop.root)
    app = PickerApp(cwd=shop.root, session=session)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press(*"Refun")  # no waiting between keys
        await settle(pilot)
        # Each keystroke asked the engine once, and cancelled the search before it.
        assert session.queries() == TYPED
        assert [a.cancel.cancelled for a in session.asked] == [True, True, True, True, False]
        last = session.asked[-1]
        assert last.completed is True and last.yielded[-1][2] is True
        # What stays on screen is the last query's final answer, nothing drawn after it.
        assert names(app) == last.yielded[-1][1]
        assert names(app)[:2] == ["RefundProcessor", "refund_order"]

    drive(app, script)


def test_a_superseded_searchs_late_batches_are_never_drawn(shop: Repo) -> None:
    session = RecordingSession(shop.root, withhold="R")
    app = PickerApp(cwd=shop.root, session=session)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("R")
        await until(
            pilot, lambda: session.queries() == ["R"] and session.asked[0].completed is True
        )
        await pilot.press(*"efun")
        await settle(pilot)
        refun = session.asked[-1]
        assert refun.query == "Refun" and names(app) == refun.yielded[-1][1]
        # "R"'s whole answer now arrives, after "Refun"'s was drawn; it lists what
        # "Refun"'s does not, and none of it reaches the screen.
        late = session.asked[0].yielded
        assert late[-1][2] is True and "reconcile" in late[-1][1]
        assert "reconcile" not in refun.yielded[-1][1]
        session.hand_withheld()
        await pilot.pause()  # (the batches' messages, and the frame after them)
        assert names(app) == refun.yielded[-1][1]
        await settle(pilot)  # (and a stale final answer would leave "Refun" unanswered)
        assert names(app) == refun.yielded[-1][1]

    drive(app, script)


def test_a_keystroke_stops_the_running_search_inside_the_engine(shop: Repo) -> None:
    session = RecordingSession(shop.root, stepped=True)
    app = PickerApp(cwd=shop.root, session=session)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press(*"Refun")
        session.gate.set()  # let the last search finish
        await settle(pilot)
        # Each earlier search was held after its first batch; the next key's
        # token cancel made the engine stop before its final batch.
        assert session.queries() == TYPED
        for asked in session.asked[:-1]:
            assert asked.cancel.cancelled, asked.query
            assert asked.yielded and not any(final for *_, final in asked.yielded), asked.query
            assert asked.completed is False, asked.query
        last = session.asked[-1]
        assert last.yielded[-1][2] is True and last.completed is True
        assert names(app)[:2] == ["RefundProcessor", "refund_order"]

    drive(app, script)


def test_the_list_updates_as_batches_arrive(shop: Repo) -> None:
    session = RecordingSession(shop.root, stepped=True)
    app = PickerApp(cwd=shop.root, session=session)
    prefix = ["RefundProcessor", "refund_order"]

    async def script(pilot: Pilot[object]) -> None:
        assert len(names(app)) > 2  # the empty query's list (the active files' definitions)
        # One edit, one search: no earlier keystroke's batch could be the one drawn.
        app.picker.query_one("#query", Input).post_message(events.Paste("Refun"))
        # the first (prefix) batch is drawn while the engine is held after it
        await until(pilot, lambda: names(app) == prefix)
        (asked,) = session.asked
        assert asked.query == "Refun"
        assert asked.yielded == [("prefix", prefix, False)]
        assert asked.completed is None  # the search is still running
        assert "2 results" in status_text(app)
        session.gate.set()
        await settle(pilot)
        # (then the fuzzy batch: a later word of record_refund spells it, and the test copy)
        full = [*prefix, "record_refund", "test_refund_order_refunds_the_total"]
        assert asked.yielded[-1] == ("fuzzy", full, True)
        assert asked.completed is True
        assert names(app) == asked.yielded[-1][1]
        assert "4 results" in status_text(app)

    drive(app, script)


def spy(
    monkeypatch: pytest.MonkeyPatch, obj: object, name: str, note: Callable[[str], None]
) -> None:
    """Call `note(arg)` as `obj.name(arg)` is called, before it acts."""
    real = getattr(obj, name)

    def call(arg: str) -> None:
        note(arg)
        real(arg)

    monkeypatch.setattr(obj, name, call)


def test_no_matches_appears_only_after_the_delay(
    shop: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = PickerApp(cwd=shop.root, query="Refund")
    seen: list[tuple[str, list[str]]] = []  # (what happened, the rows listed at that moment)

    async def script(pilot: Pilot[object]) -> None:
        before = names(app)
        assert before[0] == "RefundProcessor"
        lst = results(app)
        spy(monkeypatch, app.picker, "answer_settled", lambda q: seen.append((q, names(app))))
        spy(monkeypatch, lst, "show_placeholder", lambda t: seen.append((t, names(app))))
        # One edit, one search (typed, an earlier letter's miss could show its own note).
        app.picker.query_one("#query", Input).post_message(events.Paste("zzq"))
        await until(pilot, lambda: "no matches" in lst.render_line(0).text)
        assert lst.hits == []
        # The search finished empty with the old rows still listed; they went
        # straight to "no matches", never to an empty list first.
        assert seen == [("Refundzzq", before), ("no matches", before)]

    drive(app, script)


def test_prefilled_query_searches_at_start_and_status_shows_the_repository(shop: Repo) -> None:
    session = RecordingSession(shop.root)
    app = PickerApp(cwd=shop.root, query="refund_order", session=session)

    async def script(pilot: Pilot[object]) -> None:
        assert names(app) == ["refund_order"]
        status = str(app.picker.query_one("#status").render())
        assert "github.com/acme/shop" in status and "complete" in status and "1 result" in status
        # Asked once: the input announcing its first value is no second search (one
        # landing after a key moved the highlight put it back on the first row).
        await pilot.press("down")
        await settle(pilot)
        assert session.queries() == ["refund_order"]

    drive(app, script)


# --- keys ----------------------------------------------------------------------


def test_movement_keys(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="ord")

    async def script(pilot: Pilot[object]) -> None:
        lst = results(app)
        n = len(lst.hits)
        assert n >= 4 and lst.highlighted == 0
        seen = []
        keys = ("down", "ctrl+n", "ctrl+j", "up", "ctrl+k", "ctrl+p", "ctrl+end", "ctrl+home")
        for key in (*keys, "pagedown", "pageup"):
            await pilot.press(key)
            seen.append(lst.highlighted)
        assert seen == [1, 2, 3, 2, 1, 0, n - 1, 0, n - 1, 0]
        # Typing still goes to the query while the list moves.
        assert app.picker.query_one("#query").value == "ord"  # type: ignore[attr-defined]

    drive(app, script)


def test_a_click_selects_the_row(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="ord")

    async def script(pilot: Pilot[object]) -> None:
        assert await pilot.click("#results", offset=(5, 2))
        await settle(pilot)
        assert results(app).highlighted == 2
        assert app.return_value is None  # a single click does not open

    drive(app, script)


def test_alt_p_toggles_the_explain_pane(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="Refund")

    async def script(pilot: Pilot[object]) -> None:
        side = app.picker.query_one("#side")
        assert side.display
        assert "score" in str(app.picker.query_one("#explain").render())
        await pilot.press("alt+p")
        assert not side.display
        await pilot.press("alt+p")
        assert side.display

    drive(app, script)


def test_alt_a_toggles_all_repositories(shop: Repo, make_repo: Callable[..., Repo]) -> None:
    build_warehouse(make_repo)
    app = PickerApp(cwd=shop.root, query="refund")

    async def script(pilot: Pilot[object]) -> None:
        assert "refund_restock" not in names(app)
        await pilot.press("alt+a")
        await settle(pilot)
        assert "refund_restock" in names(app)
        hit = next(h for h in results(app).hits if h.name == "refund_restock")
        assert hit.repository == "github.com/acme/warehouse"
        assert "all repositories" in str(app.picker.query_one("#status").render())
        await pilot.press("alt+a")
        await settle(pilot)
        assert "refund_restock" not in names(app)

    drive(app, script)


def test_alt_y_copies_path_and_line(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="refund_order")

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("alt+y")
        assert app.clipboard == "shop/refunds.py:18"

    drive(app, script)


def test_f1_is_help_and_question_mark_is_always_a_letter(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.picker
        assert app.return_value is None  # esc closed the help, not the picker
        await pilot.press("question_mark", "e", "question_mark")
        assert app.picker.query_one("#query").value == "?e?"  # type: ignore[attr-defined]
        assert app.screen is app.picker

    drive(app, script)


# --- leaving -------------------------------------------------------------------


@pytest.mark.parametrize("key", ["ctrl+c", "escape", "ctrl+g", "ctrl+q"])
def test_quit_keys_exit_130_with_nothing_to_print(shop: Repo, key: str) -> None:
    app = PickerApp(cwd=shop.root, query="Refund")

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press(key)

    outcome = drive(app, script)
    assert outcome is not None
    assert (outcome.code, outcome.printed, outcome.command) == (130, None, None)
    assert finish(outcome, shop.root) == 130


def test_print_mode_prints_path_line_relative_to_cwd(
    shop: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    app = PickerApp(cwd=shop.root / "shop", query="find_by_id", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("enter")

    outcome = drive(app, script)
    assert outcome is not None and outcome.printed == ["orders.py:16"]
    assert finish(outcome, shop.root) == 0
    assert capsys.readouterr().out == "orders.py:16\n"


def stand_in_editor(tmp_path: Path) -> tuple[Path, Path]:
    record = tmp_path / "argv.json"
    exe = tmp_path / "bin" / "nvim"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))\n"
    )
    exe.chmod(0o755)
    return exe, record


def test_enter_runs_the_editor_with_the_right_arguments(shop: Repo, tmp_path: Path) -> None:
    exe, record = stand_in_editor(tmp_path)
    env = {**os.environ, "VISUAL": f"{exe} -R"}
    app = PickerApp(cwd=shop.root, query="RefundProcessor", env=env)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("down", "enter")  # the second row: its method or the function

    outcome = drive(app, script)
    assert outcome is not None and outcome.command is not None and outcome.hits is not None
    assert finish(outcome, shop.root) == 0
    got = json.loads(record.read_text())
    assert got["argv"] == ["-R", f"+{outcome.hits[0].line}", str(shop.root / outcome.hits[0].path)]
    assert got["cwd"] == str(shop.root)


def test_a_missing_editor_is_a_visible_error_and_the_picker_stays(shop: Repo) -> None:
    env = {**os.environ, "EDITOR": "no-such-editor-anywhere"}
    app = PickerApp(cwd=shop.root, query="refund_order", env=env)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("enter")
        await until(pilot, lambda: any("no-such-editor-anywhere" in t for t in toasts(app)))
        assert any("$EDITOR" in t for t in toasts(app))
        assert app.return_value is None and app.is_running

    drive(app, script)


# --- index state -----------------------------------------------------------------


def test_the_picker_warms_a_never_indexed_repository_itself(make_repo: Callable[..., Repo]) -> None:
    repo = build_shop(make_repo, index=False)
    app = PickerApp(cwd=repo.root, query="Refund")

    async def script(pilot: Pilot[object]) -> None:
        # RQ_WARM_DETACH=0 (tests): the session warms in a worker thread, in-process
        await until(pilot, lambda: "complete" in status_text(app))
        await until(pilot, lambda: bool(names(app)))
        assert names(app)[0] == "RefundProcessor"

    drive(app, script)


def test_in_a_plain_directory_the_picker_searches_a_live_scan(tmp_path: Path) -> None:
    (tmp_path / "billing.py").write_text("class RefundProcessor:\n    pass\n")
    (tmp_path / "util.rb").write_text("def refund_all\nend\n")
    app = PickerApp(cwd=tmp_path, query="refund")

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: len(names(app)) == 2)
        assert set(names(app)) == {"RefundProcessor", "refund_all"}
        assert "live scan of 2 files" in status_text(app)
        await pilot.press(*"zzqx")
        await until(
            pilot, lambda: "no matches in the scanned files" in results(app).render_line(0).text
        )

    drive(app, script)
    conn = connect()
    try:  # nothing was indexed: a plain directory is indexed only when asked
        assert conn.execute("SELECT count(*) FROM files").fetchone() == (0,)
    finally:
        conn.close()


def test_results_appear_as_someone_else_warms_the_index(make_repo: Callable[..., Repo]) -> None:
    repo = build_shop(make_repo, index=False)
    seed_only(repo, ["shop"])
    app = PickerApp(cwd=repo.root, query="Ledger", warm=False)

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: "files indexed" in status_text(app))  # the watcher's note
        assert "warming" in status_text(app)
        assert names(app) == []  # engine/ is not indexed yet
        assert "still warming" in results(app).render_line(0).text
        conn = connect()
        try:
            index_under(conn, repo.root)  # the rest of the repository, as a warmer would
        finally:
            conn.close()
        # no keystroke: the picker notices the commits and asks again
        await until(pilot, lambda: "complete" in status_text(app))
        await until(pilot, lambda: bool(names(app)))
        assert names(app)[0] == "Ledger"

    drive(app, script)


def test_a_picker_session_counts_as_one_search(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="Refu")

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("n", "d")  # three searches while typing: one session
        await settle(pilot)

    drive(app, script)
    conn = connect()
    try:
        rows = conn.execute("SELECT source, searches, misses FROM usage_daily").fetchall()
    finally:
        conn.close()
    assert rows == [("picker", 1, 0)]


def test_tuned_collector_waits_for_a_pause_and_is_restored(shop: Repo) -> None:
    before = gc.get_threshold()
    app = PickerApp(cwd=shop.root, query="ord", tune_gc=True)
    moment = [""]  # "": not recorded (the app starting or closing, before or after the policy)
    full: list[str] = []  # the moment of each full (generation 2) collection

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2 and moment[0]:
            full.append(moment[0])

    async def script(pilot: Pilot[object]) -> None:
        assert gc.get_threshold()[2] == NEVER
        assert gc.get_freeze_count() > 0
        moment[0] = "typing"
        await pilot.press(*"er")
        moment[0] = "paused"
        await until(pilot, lambda: bool(full))  # once typing pauses
        assert full == ["paused"]  # and none while typing
        moment[0] = ""

    gc.callbacks.append(collecting)
    try:
        drive(app, script)
    finally:
        gc.callbacks.remove(collecting)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
