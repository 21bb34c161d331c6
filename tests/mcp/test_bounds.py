"""Every reply fits its character budget, says when it was cut, and is never empty for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp import ClientSession

from tests.conftest import Repo, Run
from tests.mcp.conftest import ok, serve

BUDGET = 2500  # RQ_MCP_MAX_CHARS for these tests (the default is 20,000)


def many() -> dict[str, str]:
    """120 handlers in 12 classes, and one function 400 lines long."""
    classes = "".join(
        f"class Group{g:02d}:\n"
        + "".join(f"    def handler_{g:02d}_{i}(self):\n        pass\n\n" for i in range(10))
        + "\n"
        for g in range(12)
    )
    long = "def very_long():\n" + "".join(f"    x{i} = {i}\n" for i in range(400))
    return {"app/handlers.py": classes, "app/long.py": long}


def test_replies_are_cut_to_the_budget_and_say_so(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(many())
    assert rq("--index", str(repo.root)).code == 0
    texts: list[str] = []

    async def call(s: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        r = await s.call_tool(tool, args)
        texts.append(r.content[0].text)  # type: ignore[union-attr]
        return await ok(s, tool, args)

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await call(s, "find_symbol", {"query": "handler", "limit": 100, "explain": True}),
            await call(s, "symbols_in_file", {"path": "app/handlers.py"}),
            await call(s, "show_definition", {"qualified": "very_long"}),
            await call(s, "show_definition", {"qualified": "very_long", "max_lines": 5}),
            await call(s, "search_text", {"words": "handler", "limit": 100}),
        ]

    found, outline, source, five, text = serve(
        repo.root, body, env={"RQ_MCP_MAX_CHARS": str(BUDGET)}
    )
    assert all(len(t) <= BUDGET for t in texts), [len(t) for t in texts]

    assert found["outcome"] == "hit" and found["truncated"] is True
    assert 0 < len(found["results"]) < 100
    assert found["omitted"] == 100 - len(found["results"])
    assert str(BUDGET) in found["note"]

    # the outline keeps every top-level definition before any nested one
    assert outline["truncated"] is True and outline["count"] == 132
    assert [c["qualified"] for c in outline["symbols"]] == [f"Group{g:02d}" for g in range(12)]
    assert outline["omitted"] == sum(c.get("children_omitted", 0) for c in outline["symbols"])

    assert source["truncated"] is True and source["first_line"] == 1
    assert source["source"].startswith("def very_long():\n    x0 = 0\n")
    shown = source["source"].count("\n")
    assert source["last_line"] == shown and source["omitted"] == 401 - shown
    assert f"line {shown + 1}" in source["note"]  # where to read on

    assert five["truncated"] is True and (five["first_line"], five["last_line"]) == (1, 5)
    assert five["source"].count("\n") == 5 and "max_lines=5" in five["note"]

    assert text["outcome"] == "hit" and text["truncated"] is True and text["results"]


def test_a_reply_that_fits_is_whole(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = make_repo(many())
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": "handler_03", "limit": 5}),
            await ok(s, "show_definition", {"qualified": "very_long"}),
        ]

    found, source = serve(repo.root, body)  # the default budget
    assert found["truncated"] is False and found["omitted"] == 0
    assert len(found["results"]) == 5 and found["limit_reached"] is True
    assert source["truncated"] is True and source["last_line"] == 200  # max_lines' default
    assert "max_lines=200" in source["note"]
