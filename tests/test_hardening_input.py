"""Hostile query input: every shape answers with a defined exit code, no traceback, bounded work.

Real `rq` processes on a small real git repository for what a user sees (exit
codes, one `rq:` line on stderr); the engine's own query service, in-process,
for how much work a query may cause: counted (interpreted lines in rq_engine,
SQLite virtual-machine steps), never timed. An ordinary query's count, measured
in the same run, is the yardstick.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

import rq_engine
from rq_engine.core.query import MAX_QUERY_CHARS
from tests.conftest import Repo, Run

SRC = {
    "app/models.py": (
        "class Order:\n    def total(self):\n        return 1\n\n"
        "    def add_line_item(self, item):\n        pass\n\n\n"
        "class OrderRepository:\n    def find_by_id(self, order_id):\n        pass\n\n\n"
        "class ValidationError(Exception):\n    pass\n"
    ),
    "app/views.py": (
        "def order_view(request):\n    pass\n\n\ndef aaa_helper():\n    pass\n\n\n"
        "class AbAbView:\n    def get_context_data(self):\n        pass\n"
    ),
    "lib/util.py": (
        "def slugify(text):\n    return text\n\n\ndef set_value(key, value):\n    pass\n\n\n"
        "def café_latin():\n    pass\n"
    ),
}

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
CAP = MAX_QUERY_CHARS
# Shapes that made retrieval blow up or fail, or that parsers and SQL treat specially.
SHAPES: dict[str, str] = {
    "200 of one letter": "a" * 200,
    "400 of one letter": "a" * 400,
    "the cap of one letter": "a" * CAP,
    "alternating": "ab" * (CAP // 2),
    "every letter": (ALPHABET * 40)[:CAP],
    "64 letters": (ALPHABET * 3)[:64],
    "14 letters, two repeating": "ab" * 7,
    "separators": "::".join(["a"] * (CAP // 3)),
    "mixed separators": ("a::b.c#" * 200)[:CAP],
    "dots": "." * CAP,
    "dotted letters": "a." * (CAP // 2),
    "glob and fts syntax": ('*?[]"^%_\\' * 120)[:CAP],
    "fts operators": "NEAR(a b) OR c AND NOT d*",
    "path-like": "a/" * (CAP // 2),
    "unicode": "é" * CAP,
    "emoji": "😀" * CAP,
    "bidi and zero-width": "\u202eabc\u200d\u2066x",
    "inner whitespace": "a b\tc " * 100,
    "control characters": "set\x1b[2J\x07",
    "not UTF-8": "set\udcff",  # the argument's bytes are b"set\xff"
}
FACES = {"plain": [], "json": ["--json"], "ndjson": ["--ndjson"]}
# Shapes that name nothing (only scope separators): a usage error, not a search.
NAMELESS = {"dots"}


@pytest.fixture
def repo(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    r = make_repo(SRC)
    assert rq("--index", str(r.root)).code == 0
    return r


def _query_args(*flags: str, query: str) -> list[str]:
    # (a query starting with `-` would be read as a flag without `--`)
    return [*flags, "--", query] if query.startswith("-") else [*flags, query]


def _clean(r: Run, what: str) -> None:
    assert "Traceback" not in r.err and "Error:" not in r.err, (what, r.err)
    assert len(r.err.splitlines()) <= 1, (what, r.err)
    assert r.err == "" or r.err.startswith("rq: "), (what, r.err)


def test_every_query_shape_answers_with_a_defined_exit_and_no_traceback(
    repo: Repo, rq: Callable[..., Run]
) -> None:
    for shape, query in SHAPES.items():
        for face, flags in FACES.items():
            r = rq(*_query_args("-q", *flags, query=query), cwd=repo.root)
            what = f"{shape} ({face})"
            _clean(r, what)
            if shape in NAMELESS:
                assert (r.code, r.out) == (64, "") and r.err, (what, r.code, r.err)
                continue
            assert r.code in (0, 1, 2), (what, r.code, r.err)
            if face == "json":
                doc = json.loads(r.out)
                assert doc["coverage"] == "complete" and len(doc["results"]) <= 20, what
            elif face == "ndjson":
                assert all(json.loads(line)["path"] for line in r.out.splitlines()), what
        t = rq(*_query_args("--text", query=query), cwd=repo.root)
        assert t.code in (0, 1, 2, 64), (shape, "text", t.code, t.err)
        _clean(t, f"{shape} (text)")


def test_an_over_long_query_is_a_usage_error_naming_the_limit(
    repo: Repo, rq: Callable[..., Run]
) -> None:
    at_cap = rq("-q", "a" * CAP, cwd=repo.root)
    assert at_cap.code == 1 and at_cap.err == ""
    for n in (CAP + 1, 100_000):
        for flags in (["-q"], ["-q", "--json"], ["-q", "--ndjson"], ["--text"]):
            r = rq(*flags, "a" * n, cwd=repo.root)
            assert r.code == 64 and r.out == "", (flags, n, r.err)
            assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: "), r.err
            assert f"{n:,} characters" in r.err and f"the limit is {CAP:,}" in r.err, r.err
    # the ends' whitespace does not count against the limit
    padded = rq("-q", " " * 50 + "a" * CAP + "\t\n", cwd=repo.root)
    assert padded.code == 1 and padded.err == ""


def test_a_blank_query_is_the_same_usage_error_as_an_empty_one(
    repo: Repo, rq: Callable[..., Run]
) -> None:
    empty = rq("-q", "", cwd=repo.root)
    assert empty.code == 64 and empty.out == "" and empty.err.startswith("rq: ")
    for blank in ("   ", "\t", " \n "):
        for flags in (["-q"], ["-q", "--json"], ["-q", "--ndjson"]):
            r = rq(*flags, blank, cwd=repo.root)
            assert (r.code, r.out, r.err) == (64, "", empty.err), (flags, blank)


def test_a_query_of_only_scope_separators_is_a_usage_error(
    repo: Repo, rq: Callable[..., Run]
) -> None:
    # `::`, `.`, `#` and `\\` only separate a scope from a name: alone they name nothing,
    # and a silent exit 1 would promise that "nothing" is absent
    for query in ("::", ".", "#", "\\", " :: ", "...", "::.#\\", ". ."):
        for flags in (["-q"], ["-q", "--json"], ["-q", "--ndjson"]):
            r = rq(*flags, query, cwd=repo.root)
            assert (r.code, r.out) == (64, ""), (query, flags, r)
            assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: "), (query, r.err)
            assert "scope separators" in r.err, r.err
    # a separator with a name beside it still searches, as does a lone `:` (no separator)
    assert rq("-q", "::Order", cwd=repo.root).out.startswith("app/models.py:1")
    assert rq("-q", "Order.", cwd=repo.root).out.startswith("app/models.py:1")
    assert rq("-q", ":", cwd=repo.root).code == 1


def test_bytes_that_are_not_utf8_are_read_as_latin1_letters(
    repo: Repo, rq: Callable[..., Run]
) -> None:
    # `rq -q $'caf\xe9_latin'` from a Latin-1 terminal: the byte is é, not a failure
    latin = os.fsdecode(b"caf\xe9_latin")
    r = rq("-q", latin, cwd=repo.root)
    assert r.code == 0 and r.out.startswith("lib/util.py:9  function  café_latin"), r
    doc = json.loads(rq("-q", "--json", os.fsdecode(b"set\xff"), cwd=repo.root).out)
    assert doc["query"] == "setÿ"  # exact JSON, and the query as it was read
    miss = rq("-q", os.fsdecode(b"\xff\xfe\xfd"), cwd=repo.root)
    assert miss.code == 1 and miss.err == ""


# --------------------------------------------------------------------------- work


class _Work:
    """Counts a query's work: lines run in rq_engine's own code (sys.settrace) and
    SQLite VM steps (a progress handler every 100 steps). Over `budget`, it raises in
    the traced code, so a regression fails at once rather than running for minutes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.lines = 0
        self.sql = 0
        self.budget: tuple[int, int] | None = None
        self._root = os.path.dirname(rq_engine.__file__)
        conn.set_progress_handler(self._step, 100)

    def _step(self) -> int:
        self.sql += 1
        return int(self.budget is not None and self.sql > self.budget[1])  # 1 aborts

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        return self._line if frame.f_code.co_filename.startswith(self._root) else None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
            if self.budget is not None and self.lines > self.budget[0]:
                raise AssertionError(f"over the line budget {self.budget[0]}")
        return self._line

    def measure(self, run: Callable[[], object]) -> tuple[int, int]:
        self.lines = self.sql = 0
        sys.settrace(self._call)
        try:
            run()
        finally:
            sys.settrace(None)
        return self.lines, self.sql


# Queries a person types: an exact name, a prefix, an abbreviation, typos (the
# 14-letter one probes the most typo candidates of any shape), a scoped name, a miss.
ORDINARY = ["Order", "ord", "ordvw", "validation_errror", "get_contxet_data", "Order.total", "zqx"]
# How far past the dearest ordinary query any shape may go.
FACTOR = 4


def test_the_work_of_every_query_shape_is_bounded(repo: Repo) -> None:
    from rq_engine.search.service import QueryService, Wait
    from rq_engine.store.db import connect

    conn = connect()
    work = _Work(conn)
    svc = QueryService(repo.root, conn=conn)
    wait = Wait(0)  # the index is complete: nothing to wait for
    svc.answer("Order", limit=20, wait=wait)  # (first-use costs out of the way)
    ordinary = [work.measure(lambda q=q: svc.answer(q, limit=20, wait=wait)) for q in ORDINARY]
    lines = max(w[0] for w in ordinary)
    steps = max(w[1] for w in ordinary)
    work.budget = (FACTOR * lines, FACTOR * steps)
    for shape, query in SHAPES.items():
        try:
            got = work.measure(lambda q=query: svc.answer(q, limit=20, wait=wait))
        except (AssertionError, sqlite3.OperationalError) as e:  # (over budget: stopped)
            raise AssertionError(f"{shape}: {e}") from None
        assert got[0] <= FACTOR * lines and got[1] <= FACTOR * steps, (shape, got, lines, steps)
    svc.close()


# --------------------------------------------------------------------------- picker


def test_the_picker_refuses_an_over_long_query_and_keeps_going(repo: Repo) -> None:
    from textual.pilot import Pilot

    from rq_tui.app import PickerApp
    from tests.tui.test_pilot import drive, results, settle

    app = PickerApp(cwd=repo.root, query="a" * (CAP + 1))  # as if pasted

    async def script(pilot: Pilot[object]) -> None:
        shown = results(app).render_line(0).text
        assert f"{CAP + 1:,} characters" in shown and f"the limit is {CAP:,}" in shown
        await pilot.press("ctrl+u")  # clear it, then search as usual
        await pilot.press(*"Order")
        await settle(pilot)
        assert results(app).hits and results(app).hits[0].name == "Order"

    drive(app, script)


def test_the_picker_process_prefilled_over_the_limit_is_a_usage_error(repo: Repo) -> None:
    from tests.conftest import rq_bin
    from tests.tui.ptyproc import PtyProcess

    p = PtyProcess([*rq_bin(), "a" * (CAP + 1)], cwd=repo.root, env=dict(os.environ))
    assert p.wait() == 64
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    assert lines == [f"rq: the query is {CAP + 1:,} characters long; the limit is {CAP:,}"]
