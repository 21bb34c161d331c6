"""What the picker shows, as SVG snapshots (pytest-textual-snapshot), over a real indexed repo.

Regenerate after an intended change with `pytest snapshots --snapshot-update`
and look at the SVGs. The latency in the status line is frozen (it is the one
thing that varies run to run); paths are relative to the fixture repo and the
repository identity comes from its remote, so nothing depends on tmp paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerState

from rq_tui.app import PickerApp
from tests.conftest import Repo
from tests.tui.fixture import build_shop, build_warehouse, seed_only

WIDE = (120, 30)
NARROW = (80, 24)
FROZEN_MS = 7.0

SnapCompare = Callable[..., bool]


async def settle(pilot: Pilot[Any], extra: float = 0.0) -> None:
    """Every worker done and every message it posted handled (batches, then previews)."""
    for _ in range(3):
        await pilot.pause(0.08)  # past PREVIEW_DELAY, so the preview worker has started
        for _ in range(2000):
            if not any(
                w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers
            ):
                break
            await pilot.pause(0.01)
        await pilot.pause(0.02)
    if extra:
        await pilot.pause(extra)


def typing(*keys: str, extra: float = 0.0) -> Callable[[Pilot[Any]], Any]:
    """run_before: settle the start-up search, press `keys`, settle again."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in keys:
            if len(key) > 1 and key not in ("down", "up", "alt+a", "alt+p", "f1"):
                await pilot.press(*key)  # a word: type it letter by letter
            else:
                await pilot.press(key)
            await settle(pilot)
        await settle(pilot, extra)

    return run_before


def app_for(repo: Repo, **kw: Any) -> PickerApp:
    return PickerApp(cwd=repo.root, frozen_latency_ms=FROZEN_MS, **kw)


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


def test_empty_query(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing())


def test_fuzzy_query_highlights_the_matched_letters(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("rfnd"))


def test_explain_pane_of_the_second_result(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("Refund", "down"))


def test_no_matches(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("zzqx", extra=0.3))


def test_index_still_warming(make_repo: Callable[..., Repo], snap_compare: SnapCompare) -> None:
    repo = build_shop(make_repo, index=False)
    seed_only(repo, ["shop"])  # the seed pass covered shop/ only: coverage stays 'warming'
    # warm=False: the picker shows the index as it is instead of warming it
    assert snap_compare(app_for(repo, warm=False), terminal_size=WIDE, run_before=typing("Refund"))


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
def test_theme(shop: Repo, snap_compare: SnapCompare, theme: str) -> None:
    assert snap_compare(
        app_for(shop, theme=theme), terminal_size=WIDE, run_before=typing("ord", "down")
    )


def test_narrow_terminal(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=NARROW, run_before=typing("ord"))


def test_all_repositories_show_the_repository(
    shop: Repo, make_repo: Callable[..., Repo], snap_compare: SnapCompare
) -> None:
    build_warehouse(make_repo)
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("refund", "alt+a"))


def test_explain_pane_hidden_with_alt_p(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("ord", "alt+p"))


def test_key_help(shop: Repo, snap_compare: SnapCompare) -> None:
    assert snap_compare(app_for(shop), terminal_size=WIDE, run_before=typing("f1"))
