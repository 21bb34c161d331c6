"""The printer seam (rq_engine/core/printers.py) as its unit: one Output, every format.

What `rq -q`, `rq --text` and MCP print through it is tested end to end elsewhere
(tests/test_cli_query.py, tests/text, tests/mcp); this pins the formats themselves.
"""

from __future__ import annotations

import io
import json

from rq_engine.core.printers import Output, printer_for


def answer() -> Output:
    return Output(
        {"query": "Foo", "coverage": "complete"},
        [{"path": "a.py", "line": 1}, {"path": "b.py", "line": 2}],
        ["a.py:1  class  Foo", "b.py:2  function  foo"],
        tail={"not_read": {"Kotlin": 3}},
        stream=("coverage",),
    )


def printed(**flags: bool) -> str:
    out = io.StringIO()
    printer_for(**flags).write(out, answer())
    return out.getvalue()


def test_plain_is_the_lines() -> None:
    assert printed() == "a.py:1  class  Foo\nb.py:2  function  foo\n"


def test_json_is_one_document_head_results_tail_in_that_order() -> None:
    text = printed(json=True)
    assert text.endswith("\n") and text.count("\n") == 1
    doc = json.loads(text)
    assert list(doc) == ["query", "coverage", "results", "not_read"]
    assert doc["results"] == [{"path": "a.py", "line": 1}, {"path": "b.py", "line": 2}]


def test_ndjson_repeats_the_streamed_facts_on_every_line() -> None:
    rows = [json.loads(line) for line in printed(ndjson=True).splitlines()]
    assert rows == [
        {"path": "a.py", "line": 1, "coverage": "complete"},
        {"path": "b.py", "line": 2, "coverage": "complete"},
    ]


def test_print0_ends_every_record_with_a_nul() -> None:
    assert printed(print0=True) == "a.py:1  class  Foo\0b.py:2  function  foo\0"


def test_an_empty_answer_prints_nothing_plain_and_an_empty_list_as_json() -> None:
    empty = Output({"query": "x"}, [], [])
    out = io.StringIO()
    printer_for().write(out, empty)
    assert out.getvalue() == ""
    printer_for(json=True).write(out, empty)
    assert json.loads(out.getvalue()) == {"query": "x", "results": []}
