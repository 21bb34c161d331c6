"""fzf's keys in the picker: line editing, marks, preview scrolling, history, RQ_BIND."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from rq_engine.index.indexer import index_under
from rq_tui import keys
from rq_tui.app import PickerApp
from rq_tui.help import HelpScreen, help_content
from rq_tui.history import QueryHistory, RecentPicks
from rq_tui.widgets import QueryInput
from tests.conftest import Repo
from tests.tui.fixture import build_shop, open_store
from tests.tui.test_pilot import drive, results, settle


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


def query(app: PickerApp) -> QueryInput:
    return app.picker.query_one("#query", QueryInput)


# --- the key map ---------------------------------------------------------------------


def test_fzf_key_names_become_textual_keys() -> None:
    pairs = {
        "ctrl-a": "ctrl+a", "alt-bs": "ctrl+w", "btab": "shift+tab", "shift-up": "shift+up",
        "alt-up": "alt+up", "pgdn": "pagedown", "f1": "f1", "?": "question_mark", "x": "x",
        "alt-A": "alt+shift+a", "enter": "enter", "esc": "escape", "ctrl-/": "ctrl+underscore",
    }  # fmt: skip
    assert {k: keys.textual_key(k) for k in pairs} == pairs


def test_rq_bind_overrides_and_chains() -> None:
    table, by_action = keys.keymap({"RQ_BIND": "ctrl-p:prev-history,::abort,ctrl-x:toggle+up"})
    assert table["ctrl+p"] == ("prev-history",)
    assert table["colon"] == ("abort",)
    assert table["ctrl+x"] == ("toggle", "up")
    assert table["ctrl+a"] == ("beginning-of-line",)  # the defaults stay
    assert sorted(by_action["prev-history"]) == ["alt-up", "ctrl-p"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ctrl-a", "RQ_BIND: 'ctrl-a' has no ':ACTION' (write KEY:ACTION)"),
        ("hyper-a:abort", "RQ_BIND: unknown key 'hyper-a'"),
        ("ctrl-a:", "RQ_BIND: 'ctrl-a:' is not KEY:ACTION"),
    ],
)
def test_bad_rq_bind_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(keys.BindError) as e:
        keys.keymap({"RQ_BIND": spec})
    assert e.value.message == message and e.value.code == 64


def test_every_default_binding_is_in_the_help_and_the_guide() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()
    text = help_content(keys.help_rows(keys.keymap({})[1])).plain
    for key, action in keys.DEFAULT_BINDINGS:
        assert key in text, key
        assert f"`{key}`" in guide and f"`{action}`" in guide, (key, action)


# --- in the picker -------------------------------------------------------------------


def test_line_editing_keys(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="refund order")

    async def script(pilot: Pilot[object]) -> None:
        q = query(app)
        await pilot.press("ctrl+a", "x", "ctrl+e", "y")
        assert q.value == "xrefund ordery"
        await pilot.press("ctrl+b", "ctrl+b", "z", "ctrl+f", "w")
        assert q.value == "xrefund ordezrwy"
        await pilot.press("ctrl+e", "ctrl+w")  # alt-backspace is the same key to Textual
        assert q.value == "xrefund "
        await pilot.press("ctrl+u")
        assert q.value == ""
        await pilot.press("ctrl+y")  # yank: what ctrl-u took
        assert q.value == "xrefund "

    drive(app, script)


def test_tab_marks_and_enter_prints_every_mark_in_order(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="ord", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        lst = results(app)
        assert len(lst.hits) >= 3
        first3 = lst.hits[:3]
        await pilot.press("tab", "tab", "shift+tab")  # marks #1, #2 (moving down), #3 (up)
        assert list(lst.marked.values()) == first3 and lst.highlighted == 1
        assert "marked" in str(app.picker.query_one("#status").render())
        await pilot.press("enter")

    outcome = drive(app, script)
    assert outcome is not None and outcome.hits is not None and outcome.printed is not None
    assert len(outcome.printed) == 3
    assert outcome.printed == [f"{h.path}:{h.line}" for h in outcome.hits]


def test_marks_survive_a_new_query(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="refund_order", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("tab", "ctrl+u", *"find_by_id")
        await settle(pilot)
        await pilot.press("tab", "enter")

    outcome = drive(app, script)
    assert outcome is not None and outcome.printed == ["shop/refunds.py:18", "shop/orders.py:16"]


def test_shift_down_scrolls_the_preview(make_repo: Callable[..., Repo]) -> None:
    body = "".join(f"    def step_{i}(self):\n        return {i}\n\n" for i in range(30))
    repo = make_repo({"big.py": f"class BigMachine:\n{body}"}, name="big")
    with open_store() as conn:
        index_under(conn, repo.root)
    app = PickerApp(cwd=repo.root, query="BigMachine")

    async def script(pilot: Pilot[object]) -> None:
        scroll = app.picker.query_one("#preview-scroll", VerticalScroll)
        await settle(pilot)
        assert scroll.scroll_y == 0 and scroll.max_scroll_y > 0
        await pilot.press("shift+down", "shift+down")
        assert scroll.scroll_y == 2
        await pilot.press("shift+up")
        assert scroll.scroll_y == 1
        assert results(app).highlighted == 0  # the list did not move

    drive(app, script)


def test_history_recalls_accepted_queries(shop: Repo, tmp_path: Path) -> None:
    history = QueryHistory(tmp_path)
    history.add("Refund")
    history.add("place_order")
    app = PickerApp(cwd=shop.root, query="dra")
    app.picker.history = QueryHistory(tmp_path)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("alt+up")
        assert query(app).value == "place_order"
        await pilot.press("alt+up", "alt+up")
        assert query(app).value == "Refund"
        await pilot.press("alt+down", "alt+down")
        assert query(app).value == "dra"  # back to what was being typed

    drive(app, script)


def test_history_is_bounded_and_a_repeat_moves_to_the_end(tmp_path: Path) -> None:
    h = QueryHistory(tmp_path)
    for i in range(1005):
        h.add(f"q{i}")
    h.add("q1000")
    lines = (tmp_path / "history").read_text().splitlines()
    assert len(lines) == 1000 and lines[-1] == "q1000" and lines.count("q1000") == 1


def test_empty_query_lists_recent_picks(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, query="find_by_id", print_only=True)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("enter")

    drive(app, script)  # a pick: remembered under RQ_HOME
    assert [h.name for h in RecentPicks().recent(str(shop.root))] == ["find_by_id"]
    again = PickerApp(cwd=shop.root, print_only=True)

    async def empty(pilot: Pilot[object]) -> None:
        hits = results(again).hits  # the pick first, then the active files' definitions
        assert (hits[0].name, hits[0].layer) == ("find_by_id", "recent")
        assert [h.name for h in hits].count("find_by_id") == 1  # (not listed twice)
        await pilot.press("enter")

    outcome = drive(again, empty)
    assert outcome is not None and outcome.printed == ["shop/orders.py:16"]


def test_f1_help_lists_the_rebound_keys(shop: Repo) -> None:
    app = PickerApp(cwd=shop.root, env={"RQ_BIND": "ctrl-t:toggle-preview"})

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "alt-p  ctrl-t" in help_content(app.screen.rows).plain

    drive(app, script)
