"""Twenty calls in flight at once: every one answered, each exactly as it is answered alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from mcp import ClientSession

from tests.conftest import Repo, Run
from tests.mcp.conftest import SRC, ok, serve

CALLS: list[tuple[str, dict[str, Any]]] = [
    *[("find_symbol", {"query": q}) for q in ("Widget", "wdgt", "render", "Reader.Read", "Cart")],
    *[("find_symbol", {"query": q, "explain": True, "limit": 3}) for q in ("rdr", "Renderer")],
    ("symbols_in_file", {"path": "app/widgets.py"}),
    ("symbols_in_file", {"path": "io/reader.go"}),
    ("symbols_in_file", {"path": "lib/shop.rb"}),
    ("show_definition", {"qualified": "Widget.render"}),
    ("show_definition", {"path": "io/reader.go", "line": 6}),
    ("show_definition", {"qualified": "Shop::Cart#total"}),
    ("search_text", {"words": "widget factory"}),
    ("search_text", {"words": "reader read", "limit": 3}),
    ("index_status", {}),
    ("find_symbol", {"query": "nothing_like_this_exists"}),
    ("find_symbol", {"query": "widget_factory", "kinds": ["function"]}),
    ("find_symbol", {"query": "Widget", "path_prefix": "tests"}),
    ("show_definition", {"qualified": "Missing.thing"}),
]


def stable(reply: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in reply.items() if k not in ("fresh", "updated_at", "doing")}


def test_twenty_concurrent_calls(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    assert len(CALLS) == 20
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> tuple[list[Any], list[Any]]:
        alone = [await ok(s, tool, args) for tool, args in CALLS]
        together: list[Any] = [None] * len(CALLS)

        async def one(i: int) -> None:
            together[i] = await ok(s, *CALLS[i])

        async with anyio.create_task_group() as tg:
            for i in range(len(CALLS)):
                tg.start_soon(one, i)
        return alone, together

    alone, together = serve(repo.root, body)
    assert [stable(r) for r in together] == [stable(r) for r in alone]
    assert all(r["coverage"] == "complete" for r in together)
