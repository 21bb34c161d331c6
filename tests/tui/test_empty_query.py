"""An empty query that helps: recent picks, then the definitions of the files being worked on.

Real git repositories (the shop fixture), the real index and engine
(rq_engine.search.active) and the picker driven headless; every wait is on a
condition (what the list holds), never on a duration.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from rq_engine.search.active import active_definitions, active_files
from rq_engine.store.db import connect
from rq_engine.store.repos import locate
from rq_tui.app import PickerApp
from rq_tui.history import RecentPicks
from rq_tui.session import SearchSession
from tests.conftest import Repo
from tests.tui.fixture import build_shop
from tests.tui.test_pilot import SIZE, drive, results, status_text, until

CANCEL_ORDER = "\n\ndef cancel_order(order):\n    return order\n"


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    """The shop, indexed and settled as `rq --index` leaves a repository: its verdict
    recorded, with the commit times the "committed lately" files come from."""
    repo = build_shop(make_repo)
    session = SearchSession(repo.root)
    try:
        assert session.warm() == "here"
    finally:
        session.close()
    return repo


def edit(repo: Repo, rel: str, tail: str, mtime: float | None = None) -> None:
    p = repo.root / rel
    p.write_text(p.read_text(encoding="utf-8") + tail, encoding="utf-8")
    if mtime is not None:
        os.utime(p, (mtime, mtime))


def heading(app: PickerApp) -> str:
    return str(app.picker.query_one("#list-heading").render())


def drawn(app: PickerApp) -> list[str]:
    """The result rows as drawn (text, trailing blanks cut)."""
    lst = results(app)
    return [lst.render_line(y).text.rstrip() for y in range(lst.size.height)]


def listed(app: PickerApp) -> list[tuple[str, str, str]]:
    return [(h.path, h.qualified, h.score.parts[0][0]) for h in results(app).hits]


def active_in(repo: Repo) -> list[tuple[str, str]]:
    conn = connect()
    try:
        root, rid, _ = locate(conn, repo.root)
        assert rid is not None
        return active_files(conn, root, rid)
    finally:
        conn.close()


# --- what the picker draws ----------------------------------------------------


def test_an_empty_query_lists_the_edited_file_first_with_its_new_definition(shop: Repo) -> None:
    # An edit the index has not seen: the list stats its files, takes the edit in, and
    # the edited file leads, its definitions in line order, then the latest commit's.
    edit(shop, "shop/orders.py", CANCEL_ORDER)
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: heading(app).startswith("empty query: 26 definitions"))
        rows = drawn(app)
        assert rows[0].split() == ["shop/orders.py:7", "class", "Order"]
        assert [r.split()[0] for r in rows[:9]] == [
            f"shop/orders.py:{n}" for n in (7, 8, 9, 12, 13, 16, 19, 23, 28)
        ]
        assert rows[1].split() == ["shop/orders.py:8", "field", "Order.id"]  # a dataclass field
        assert rows[8].split() == ["shop/orders.py:28", "function", "cancel_order"]
        assert listed(app)[9][0] == "engine/src/ledger.rs"  # committed lately, by path
        assert {why for path, _, why in listed(app) if path == "shop/orders.py"} == {"edited"}
        assert {why for path, _, why in listed(app) if path != "shop/orders.py"} == {
            "committed lately"
        }
        assert heading(app) == (
            "empty query: 26 definitions in 5 active files (1 edited, 4 committed lately)"
            " — type to search"
        )
        assert "26 results" in status_text(app)
        await pilot.press("o")  # a typed query's answer replaces the list and its heading
        await until(pilot, lambda: app.picker.final_query == "o")
        assert heading(app) == "" and not app.picker.query_one("#list-heading").display
        await pilot.press("backspace")  # and an empty query brings it back
        await until(pilot, lambda: heading(app).startswith("empty query: 26 definitions"))
        assert drawn(app)[8].split()[-1] == "cancel_order"

    drive(app, script)


def test_recent_picks_come_first_and_are_not_listed_twice(shop: Repo) -> None:
    edit(shop, "shop/orders.py", CANCEL_ORDER)
    first = PickerApp(cwd=shop.root, query="find_by_id", print_only=True)

    async def pick(pilot: Pilot[object]) -> None:
        await pilot.press("enter")

    drive(first, pick)  # a pick, remembered under RQ_HOME
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: "cancel_order" in [h.name for h in results(app).hits])
        hits = results(app).hits
        assert (hits[0].qualified, hits[0].layer) == ("OrderRepository.find_by_id", "recent")
        assert [h.qualified for h in hits].count("OrderRepository.find_by_id") == 1
        assert [h.name for h in hits[1:6]] == [
            "Order",
            "id",
            "total",
            "OrderRepository",
            "__init__",
        ]
        assert heading(app).startswith("empty query: 1 recent pick, then 25 definitions in 5")

    drive(app, script)


def test_enter_on_an_empty_query_waits_for_the_list(shop: Repo) -> None:
    # Enter pressed before the active files' definitions are in acts on the list as it
    # will be drawn (its first row), as Enter waits for a typed query's final answer.
    edit(shop, "shop/orders.py", CANCEL_ORDER)
    app = PickerApp(cwd=shop.root, print_only=True)

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            await until(pilot, lambda: app.return_value is not None)

    asyncio.run(go())
    assert app.return_value is not None and app.return_value.printed == ["shop/orders.py:7"]


def test_untracked_and_dirty_files_appear_once_the_picker_has_warmed(
    shop: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file the index does not know yet (untracked): the picker's own warm (its verdict
    # has expired: RQ_WARM_RECHECK_MS=0) takes it in, and the list is asked again.
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    shop.write(
        "shop/coupons.py", "class Coupon:\n    def apply(self, total):\n        return total\n"
    )
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: "Coupon" in [h.name for h in results(app).hits])
        assert listed(app)[:2] == [
            ("shop/coupons.py", "Coupon", "edited"),
            ("shop/coupons.py", "Coupon.apply", "edited"),
        ]
        assert drawn(app)[0].split() == ["shop/coupons.py:1", "class", "Coupon"]

    drive(app, script)


def test_a_feature_branch_lists_what_it_changed_against_the_trunk(
    shop: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a generous budget: the first answer for a branch comes from git, ~6 ms, and a
    # loaded machine must not turn that into a skipped boost)
    monkeypatch.setenv("RQ_BRANCH_BUDGET_MS", "20000")
    shop.git("checkout", "-q", "-b", "feature")
    edit(
        shop, "web/src/checkout.ts", "\nexport function refundPrice(c: number) {\n  return -c;\n}\n"
    )
    shop.commit("refunds in the checkout")
    app = PickerApp(cwd=shop.root)

    async def script(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: "(1 branch, 4 committed lately)" in heading(app))
        files = list(dict.fromkeys((p, why) for p, _, why in listed(app)))
        assert files[0] == ("web/src/checkout.ts", "branch")
        row = drawn(app)[6].split()  # (the path column is cut from the left at this width)
        assert row[0].endswith("checkout.ts:16") and row[1:] == ["function", "refundPrice"]
        assert drawn(app)[7].split()[-1] == "Ledger"  # then the trunk's last commit

    drive(app, script)


# --- the engine's list ----------------------------------------------------------


def test_edited_files_come_newest_first_and_the_trunk_forks_nothing(shop: Repo) -> None:
    edit(shop, "shop/refunds.py", "\n# older edit\n", mtime=1_700_000_000)
    edit(shop, "web/src/checkout.ts", "\n// newer edit\n", mtime=1_700_000_100)
    conn = connect()
    try:
        hits = active_definitions(conn, shop.root)
    finally:
        conn.close()
    files = list(dict.fromkeys((h.path, h.score.parts[0][0]) for h in hits))
    assert files == [
        ("web/src/checkout.ts", "edited"),
        ("shop/refunds.py", "edited"),
        ("engine/src/ledger.rs", "committed lately"),
        ("shop/orders.py", "committed lately"),
        ("shop/tests/test_refunds.py", "committed lately"),
    ]
    lines = [h.line for h in hits if h.path == "shop/refunds.py"]
    assert lines == sorted(lines) and len(lines) == 6
    assert all(h.layer == "active" and h.score.total == 0 for h in hits)
    # On the trunk the branch's files are decided from .git natively: git was never
    # started, so no answer (or refresh marker) was ever written for this checkout.
    assert not (Path(os.environ["RQ_CACHE"]) / "branch").exists()
    assert active_in(shop)[:2] == [("web/src/checkout.ts", "edited"), ("shop/refunds.py", "edited")]


def test_a_deleted_file_is_not_listed(shop: Repo) -> None:
    edit(shop, "shop/orders.py", CANCEL_ORDER)
    conn = connect()
    try:
        assert active_definitions(conn, shop.root)[0].path == "shop/orders.py"
        (shop.root / "shop/orders.py").unlink()
        hits = active_definitions(conn, shop.root)
    finally:
        conn.close()
    assert hits and "shop/orders.py" not in {h.path for h in hits}


def test_outside_an_indexed_repository_the_list_is_empty(tmp_path: Path) -> None:
    conn = connect()
    try:
        assert active_definitions(conn, tmp_path) == []
    finally:
        conn.close()
    assert RecentPicks().recent(str(tmp_path)) == []
