"""SVG snapshots of the picker's new layouts: long paths at 80 and 100 columns, marks, help, empty query.

Regenerate after an intended change with
`pytest tests/tui/test_snapshots.py --snapshot-update` and look at the SVGs
(tests/tui/__snapshots__/). The latency is frozen; paths are relative to the
fixture repository, so nothing depends on tmp paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from rq_engine.index.indexer import index_under
from rq_tui.app import PickerApp
from rq_tui.history import RecentPicks
from rq_tui.session import SearchSession
from tests.conftest import Repo
from tests.tui.fixture import build_shop, open_store
from tests.tui.test_pilot import settle

FROZEN_MS = 7.0
SnapCompare = Callable[..., bool]

# Deep paths and long qualified names, as in Django or rustc.
DEEP_FILES = {
    "django/db/models/sql/compiler.py": """class SQLCompiler:
    def related_selections_for_update_of_inherited_models(self, select):
        return select

    def related_selections_with_deferred_loading(self):
        return None
""",
    "django/contrib/admin/templatetags/admin_list.py": """class ResultListTemplateRenderer:
    def related_selections_in_result_list(self, context):
        return context
""",
    "django/db/models/query.py": """class QuerySet:
    def related_selections(self, *fields):
        return self
""",
}


def typing(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


@pytest.fixture
def deep(make_repo: Callable[..., Repo]) -> Repo:
    repo = make_repo(DEEP_FILES, name="django", remote="https://github.com/acme/django.git")
    with open_store() as conn:
        index_under(conn, repo.root)
    return repo


@pytest.mark.parametrize("width", [80, 100])
def test_long_paths_are_shortened_from_the_left_and_names_stay(
    deep: Repo, snap_compare: SnapCompare, width: int
) -> None:
    app = PickerApp(cwd=deep.root, query="related_selections", frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(width, 24), run_before=typing())


def test_marked_results(make_repo: Callable[..., Repo], snap_compare: SnapCompare) -> None:
    shop = build_shop(make_repo)
    app = PickerApp(cwd=shop.root, query="ord", frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(120, 30), run_before=typing("tab", "down", "tab"))


def test_key_help(make_repo: Callable[..., Repo], snap_compare: SnapCompare) -> None:
    shop = build_shop(make_repo)
    app = PickerApp(cwd=shop.root, frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(120, 50), run_before=typing("f1"))


def test_empty_query_lists_recent_picks(
    make_repo: Callable[..., Repo], snap_compare: SnapCompare
) -> None:
    shop = build_shop(make_repo)
    from rq_engine.search.service import QueryService

    svc = QueryService(shop.root, source="test")
    try:
        picks = [svc_hit(svc, q) for q in ("find_by_id", "refund_order")]
    finally:
        svc.close()
    RecentPicks().add(picks)
    app = PickerApp(cwd=shop.root, frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(120, 30), run_before=typing())


def test_empty_query_lists_the_active_files(
    make_repo: Callable[..., Repo], snap_compare: SnapCompare
) -> None:
    # The layout of the empty query: a muted heading, the recent pick, then the edited
    # file's definitions in line order (its new one included), then the latest commit's.
    shop = build_shop(make_repo)
    session = SearchSession(shop.root)
    try:
        session.warm()  # settled as `rq --index` leaves it (the commit times)
    finally:
        session.close()
    orders = shop.root / "shop/orders.py"
    orders.write_text(orders.read_text() + "\n\ndef cancel_order(order):\n    return order\n")
    from rq_engine.search.service import QueryService

    svc = QueryService(shop.root, source="test")
    try:
        RecentPicks().add([svc_hit(svc, "refund_order")])
    finally:
        svc.close()
    app = PickerApp(cwd=shop.root, frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(120, 30), run_before=typing())


def svc_hit(svc: Any, query: str) -> Any:
    from rq_engine.search.types import CancelToken

    hits = [b for b in svc.stream(query, limit=1, cancel=CancelToken()) if b.final][-1].hits
    return hits[0]


def test_text_mode(
    make_repo: Callable[..., Repo], snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch
) -> None:
    # alt-t: the words ranked by text-ranker/bm25-v1; the status line says "text" and how
    # the cache served the answer (the first text query builds it, in-process here).
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "0")
    shop = build_shop(make_repo)
    app = PickerApp(cwd=shop.root, query="refund order", frozen_latency_ms=FROZEN_MS)
    assert snap_compare(app, terminal_size=(120, 30), run_before=typing("alt+t"))
