"""The five tools through a real `rq --mcp`: listed with schemas, each answering, the same
ranking as `rq -q --json`, and fresh across edits made between calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from tests.conftest import ROOT, Repo, Run, corpus
from tests.mcp.conftest import SRC, ok, refused, serve

SHARED = next((p for p in (ROOT.parent / "shared", Path("/work/shared")) if p.is_dir()), ROOT)
TOOLS = ["find_symbol", "symbols_in_file", "show_definition", "search_text", "index_status"]


def indexed(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(SRC)
    r = rq("--index", str(repo.root))
    assert r.code == 0, r.err
    return repo


def test_lists_five_tools_with_precise_schemas(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)

    async def body(s: ClientSession) -> Any:
        return (await s.list_tools()).tools

    tools = {t.name: t for t in serve(repo.root, body)}
    assert sorted(tools) == sorted(TOOLS)
    for t in tools.values():
        assert t.description and len(t.description) > 80, t.name
        assert t.input_schema["type"] == "object"
        assert t.input_schema["additionalProperties"] is False
        assert t.output_schema is not None and t.output_schema["type"] == "object"
        # every reply carries the coverage state and the budget flags
        assert {"coverage", "truncated", "omitted", "note"} <= set(t.output_schema["required"])
        assert t.annotations is not None and t.annotations.read_only_hint is True
    find = tools["find_symbol"].input_schema
    assert find["required"] == ["query"]
    assert set(find["properties"]) == {
        "query",
        "limit",
        "kinds",
        "path_prefix",
        "all_repos",
        "explain",
        "anchor",
    }
    assert "function" in find["properties"]["kinds"]["items"]["enum"]
    assert tools["search_text"].input_schema["required"] == ["words"]
    assert tools["index_status"].input_schema["properties"] == {}


QUERIES = ["Widget", "wdgt", "Wigdet", "Widget.render", "render", "Reader.Read", "rdr", "Cart"]


def test_find_symbol_ranks_exactly_as_rq_q_json(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    cases = [(q, limit, explain) for q in QUERIES for limit, explain in ((20, False), (2, True))]

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": q, "limit": n, "explain": ex})
            for q, n, ex in cases
        ]

    replies = serve(repo.root, body)
    for (q, n, ex), reply in zip(cases, replies, strict=True):
        flags = ["--explain"] if ex else []
        cli = json.loads(rq("-q", "--json", "--limit", str(n), *flags, q, cwd=repo.root).out)
        got = [{k: v for k, v in o.items() if k != "margin"} for o in reply["results"]]
        assert got == cli["results"], q  # same objects: same order, same scores
        assert reply["coverage"] == cli["coverage"] == "complete"
        assert reply["outcome"] == "hit" and reply["truncated"] is False
        scores = [o["score"] for o in reply["results"]]
        margins = [o["margin"] for o in reply["results"]]
        gaps = [a - b for a, b in zip(scores, scores[1:], strict=False)]
        # (from the unrounded scores: within a rounding step of the shown ones' gap)
        assert all(abs(m - g) < 0.011 for m, g in zip(margins, gaps, strict=False))
        assert None not in margins[:-1]
        assert margins[-1] is None  # the next one is not known (or there is none)
        assert reply["limit_reached"] == (len(scores) == n)


def test_filters_apply_to_a_wider_candidate_list(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": "render", "kinds": ["method"]}),
            await ok(s, "find_symbol", {"query": "Widget", "path_prefix": "./tests/"}),
            await ok(s, "find_symbol", {"query": "Widget", "kinds": ["macro"]}),
            await ok(s, "find_symbol", {"query": "render", "limit": 1}),
        ]

    methods, tests, none, one = serve(repo.root, body)
    assert [o["qualified"] for o in methods["results"]] == ["Widget.render"]
    assert [o["path"] for o in tests["results"]] == ["tests/test_widgets.py"]
    assert none["outcome"] == "filtered_out" and none["results"] == []
    assert "filters" in none["note"]
    # a limit is never "no results": the first one, and a flag saying more may exist
    assert one["outcome"] == "hit" and len(one["results"]) == 1 and one["limit_reached"]


def test_outline_definition_text_and_status(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "symbols_in_file", {"path": "app/widgets.py"}),
            await ok(s, "show_definition", {"qualified": "Widget.render"}),
            await ok(s, "show_definition", {"path": "app/widgets.py", "line": 6}),
            await ok(
                s, "show_definition", {"qualified": "Widget", "path": "tests/test_widgets.py"}
            ),
            await ok(s, "show_definition", {"qualified": "Nothing.here"}),
            await ok(s, "search_text", {"words": "widget factory"}),
            await ok(s, "index_status"),
        ]

    outline, by_name, by_line, by_path, missing, text, status = serve(repo.root, body)
    assert outline["coverage"] == "complete" and outline["reparsed"] is False
    assert outline["count"] == 5 and outline["language"] == "python"
    widget, factory = outline["symbols"]
    assert (widget["qualified"], widget["line"], widget["end_line"]) == ("Widget", 1, 11)
    assert [c["qualified"] for c in widget["children"]] == ["Widget.render", "Widget.refresh"]
    assert widget["children"][0]["children"][0]["qualified"] == "Widget.render.inner"
    assert (factory["qualified"], factory["line"]) == ("widget_factory", 14)

    assert by_name["outcome"] == "hit" and by_name["definition"]["line"] == 4
    assert by_name["source"].startswith("    def render(self, depth):\n")
    assert by_name["source"].endswith("        return inner()\n")
    assert (by_name["first_line"], by_name["last_line"]) == (4, 8)
    assert by_line["definition"]["qualified"] == "Widget.render.inner"  # the innermost
    assert by_line["source"] == "        def inner():\n            return depth\n"
    assert by_path["definition"]["path"] == "tests/test_widgets.py"
    assert by_path["source"] == "class Widget:\n    pass\n"
    assert missing["outcome"] == "miss" and missing["definition"] is None

    assert text["outcome"] == "hit" and text["results"][0]["qualified"] == "widget_factory"
    assert text["ranker"] == "text-ranker/bm25-v1" and text["coverage"] == "complete"

    assert status["coverage"] == "complete" and status["root"] == str(repo.root)
    assert status["files_indexed"] == len(SRC) and status["symbols"] > 10
    assert status["warming"] is False and status["doing"]


def test_an_edit_between_calls_is_found_by_the_next_call(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        out = [await ok(s, "find_symbol", {"query": "brand_new_helper"})]
        # the agent appends a definition, adds a file, and shifts a class down
        src = SRC["app/widgets.py"]
        repo.write(
            "app/widgets.py", "# moved\n# down\n" + src + "\n\ndef brand_new_helper():\n    pass\n"
        )
        repo.write("app/extra.py", "class FreshlyWritten:\n    pass\n")
        out.append(await ok(s, "find_symbol", {"query": "brand_new_helper"}))
        out.append(await ok(s, "find_symbol", {"query": "FreshlyWritten"}))
        out.append(await ok(s, "symbols_in_file", {"path": "app/widgets.py"}))
        out.append(await ok(s, "show_definition", {"qualified": "Widget.refresh"}))
        return out

    before, after, new_file, outline, shown = serve(repo.root, body)
    assert before["outcome"] == "miss" and before["coverage"] == "complete"
    assert [(o["path"], o["line"]) for o in after["results"][:1]] == [("app/widgets.py", 20)]
    assert new_file["results"][0]["path"] == "app/extra.py"
    assert outline["symbols"][0]["line"] == 3  # Widget, two lines down
    assert outline["symbols"][-1]["qualified"] == "brand_new_helper"
    assert shown["definition"]["line"] == 12
    assert shown["source"].startswith("    def refresh(self):")


def test_search_text_finds_a_file_added_inside_the_recheck_window(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """A verdict trusted for an hour (the window): an unstaged new file moves no git
    stamp, so only the miss asking git finds it, as `rq --text` does."""
    window = {"RQ_WARM_RECHECK_MS": "3600000"}
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root), env=window).code == 0

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        out = [await ok(s, "search_text", {"words": "widget factory"})]
        repo.write("app/ledger.py", "def post_ledger_entry():\n    pass\n")
        out.append(await ok(s, "search_text", {"words": "post ledger entry"}))
        return out

    before, after = serve(repo.root, body, env=window)
    assert before["outcome"] == "hit"
    assert after["outcome"] == "hit", after
    assert after["results"][0]["path"] == "app/ledger.py"


def test_a_miss_while_warming_says_not_yet_then_the_next_call_finds_it(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(SRC)  # never indexed; no wait at all: the answer cannot be known yet

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": "Widget"}),
            await ok(s, "find_symbol", {"query": "Widget"}),  # (warmed in between: DETACH=0)
            await ok(s, "find_symbol", {"query": "NoSuchThingAnywhere"}),
        ]

    first, second, absent = serve(repo.root, body, env={"RQ_WAIT_BUDGET_MS": "0"})
    assert first["outcome"] == "not_yet" and first["results"] == []
    assert first["coverage"] in ("never", "warming") and first["note"]
    assert second["outcome"] == "hit" and second["coverage"] == "complete"
    assert absent["outcome"] == "miss"  # definitive only once complete


def test_nothing_rq_reads_is_said_as_rq_q_says_it_never_not_yet(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """Only files of languages rq has no plugin for: `rq -q` exits 3 naming them, and the
    tools say the same (`nothing_readable`, `not_read`, the CLI's words in `note`), not
    "not yet" (retrying would not help) nor "miss" (absent is not what is known)."""
    repo = make_repo({"app/Main.kt": "fun main() {}\n", "app/Util.kt": "fun u() {}\n"}, name="kt")
    repo.write("ios/View.swift", "func view() {}\n")
    repo.commit()
    assert rq("--index", str(repo.root)).code == 0
    cli = rq("-q", "main", "--json", cwd=repo.root)
    assert cli.code == 3
    said = cli.err.removeprefix("rq: no match for 'main': ").rstrip("\n")

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": "main"}),
            await ok(s, "show_definition", {"qualified": "main"}),
            await ok(s, "search_text", {"words": "main"}),
        ]

    found, shown, text = serve(repo.root, body)
    assert (
        said
        == "nothing here rq reads (2 Kotlin, 1 Swift files not read: rq has no plugin for them)"
    )
    assert (found["outcome"], found["results"], found["note"]) == ("nothing_readable", [], said)
    assert found["nothing_readable"] is True
    assert found["not_read"] == json.loads(cli.out)["not_read"] == {"Kotlin": 2, "Swift": 1}
    assert (shown["outcome"], shown["note"]) == ("nothing_readable", said)
    assert text["outcome"] == "nothing_readable" and said in text["note"]

    # beside a file rq reads, a miss is a miss, and it names what was not read (as rq -q)
    repo.write("tool.py", "def tool():\n    pass\n")
    repo.commit()
    assert rq("--index", str(repo.root)).code == 0
    cli = rq("-q", "main", "--json", cwd=repo.root)
    assert cli.code == 1 and cli.err.endswith("; 2 Kotlin, 1 Swift files not read\n")
    found = serve(repo.root, lambda s: ok(s, "find_symbol", {"query": "main"}))
    assert (found["outcome"], found["not_read"]) == ("miss", {"Kotlin": 2, "Swift": 1})
    assert "nothing_readable" not in found and "2 Kotlin, 1 Swift files not read" in found["note"]


def test_all_repos_is_the_servers_choice(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    other = make_repo({"svc/billing.py": "class InvoiceBuilder:\n    pass\n"}, name="other")
    assert rq("--index", str(other.root)).code == 0

    async def narrow(s: ClientSession) -> Any:
        return await s.call_tool("find_symbol", {"query": "InvoiceBuilder", "all_repos": True})

    refused = serve(repo.root, narrow)
    assert refused.is_error and "--all-repos" in refused.content[0].text  # type: ignore[union-attr]

    async def wide(s: ClientSession) -> list[dict[str, Any]]:
        return [
            await ok(s, "find_symbol", {"query": "InvoiceBuilder"}),
            await ok(s, "show_definition", {"qualified": "InvoiceBuilder"}),
            await ok(s, "find_symbol", {"query": "InvoiceBuilder", "all_repos": False}),
        ]

    found, shown, here = serve(repo.root, wide, "--all-repos")
    assert found["results"][0]["path"] == "../other/svc/billing.py"
    assert shown["source"] == "class InvoiceBuilder:\n    pass\n"
    assert here["results"] == [] and here["outcome"] == "miss"


@pytest.mark.corpus
def test_find_symbol_ranks_as_rq_q_on_django(rq: Callable[..., Run]) -> None:
    root = corpus("django")
    assert rq("--index", str(root), timeout=600).code == 0
    public = SHARED / "bench" / "queries-public.jsonl"
    lines = public.read_text().splitlines() if public.exists() else []
    rows = [json.loads(line) for line in lines if line.strip()]
    queries = [r["query"] for r in rows if r["corpus"] == "django"] or ["QuerySet", "mdlform"]

    async def body(s: ClientSession) -> list[dict[str, Any]]:
        return [await ok(s, "find_symbol", {"query": q, "limit": 10}) for q in queries]

    for q, reply in zip(queries, serve(root, body), strict=True):
        cli = json.loads(rq("-q", "--json", "--limit", "10", q, cwd=root).out)
        got = [{k: v for k, v in o.items() if k != "margin"} for o in reply["results"]]
        assert got == cli["results"], q


def test_find_symbol_ranks_from_an_anchor(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """An agent looking at a line passes it as `anchor`: of two equally good `foo`s, the
    one enclosing that line comes first, either way round; a bad anchor is a tool error
    and the server keeps serving."""
    code = "class A:\n    def foo(self):\n        pass\n\n\nclass B:\n    def foo(self):\n        pass\n"
    repo = make_repo({"m.py": code}, name="anchored")
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> tuple[list[Any], str, dict[str, Any]]:
        firsts = []
        for line in (3, 8):
            r = await ok(
                s, "find_symbol", {"query": "foo", "anchor": f"m.py:{line}", "explain": True}
            )
            firsts.append((r["results"][0]["qualified"], r["results"][0]["line"]))
        bad = await refused(s, "find_symbol", {"query": "foo", "anchor": "m.py:x"})
        after = await ok(s, "find_symbol", {"query": "foo"})
        return firsts, bad, after

    firsts, bad, after = serve(repo.root, body)
    assert firsts == [("A.foo", 2), ("B.foo", 7)]
    assert "anchor: m.py:x: expected FILE:LINE" in bad
    assert len(after["results"]) == 2  # still serving, and no anchor left behind
