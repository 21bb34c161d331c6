"""Python bodies blanked before the parse (lang/_pybodies.py): what is left out, and
what is kept because the layout could be lying."""

from __future__ import annotations

import pytest

from rq_engine.lang._pybodies import blank_bodies
from rq_engine.lang.python import PythonPlugin


def blanked(source: str) -> str:
    return blank_bodies(source.encode()).decode()


def spaces(line: str) -> str:
    return " " * len(line)


def test_a_plain_body_keeps_one_statement_on_its_last_line() -> None:
    body = ["    x = a + b", "", "    return (x +", "            1)", "    # tail"]
    src = "\n".join(["def f(a, b) -> int:  # note", *body, "y = 2", ""])
    want = [spaces(ln) for ln in body]
    want[3] = "            0 "  # the last line of code keeps a `0` at its indentation
    assert blanked(src).split("\n") == ["def f(a, b) -> int:  # note", *want, "y = 2", ""]
    # the symbols and their lines are those of the whole source
    syms = {(s.name, s.line, s.end_line) for s in PythonPlugin().extract(src.encode())}
    assert ("f", 1, 5) in syms


def test_methods_and_async_defs_are_blanked_at_their_depth() -> None:
    src = "class A:\n    async def f(self):\n        await g()\n        return 1\n    X = 2\n"
    assert blanked(src).split("\n") == [
        "class A:",
        "    async def f(self):",
        spaces("        await g()"),
        "        0       ",
        "    X = 2",
        "",
    ]
    syms = {(s.name, s.line, s.end_line) for s in PythonPlugin().extract(src.encode())}
    assert syms == {("A", 1, 5), ("f", 2, 4), ("X", 5, 5)}


@pytest.mark.parametrize(
    "src",
    [
        'def f():\n    s = """\ntext at column 0\n"""\n    return s\n',  # a string past a dedent
        "def f():\n    x = (1,\n2)\n    return x\n",  # a bracket past a dedent
        "def f():\n    x = 1 + \\\n    2\n    return x\n",  # a continuation
        "def f():\n    a = 1\n# a comment at column 0 is no dedent\n    return a\n",
        "def f(\n    a,\n):\n    return a\n",  # a header over several lines
        "def f(): return 1\n",  # a one-line def has no body to blank
        "x = 1\n",
    ],
)
def test_what_the_layout_cannot_vouch_for_is_parsed_whole(src: str) -> None:
    assert blanked(src) == src


def test_a_body_holding_a_definition_is_kept_and_the_inner_one_blanked() -> None:
    src = "def f():\n    def g():\n        return 1\n    return g\n"
    assert blanked(src).split("\n") == [
        "def f():",
        "    def g():",
        "        0       ",
        "    return g",
        "",
    ]
    syms = {(s.name, s.line, s.end_line) for s in PythonPlugin().extract(src.encode())}
    assert syms == {("f", 1, 4), ("g", 2, 3)}


def test_headers_deeper_than_the_bound_are_parsed_whole() -> None:
    """Finding a body's end reads it: a chain of defs each nested in the last would
    cost the square of the file, so deep headers are left as they are."""
    from rq_engine.lang._pybodies import MAX_DEPTH

    deep = " " * (MAX_DEPTH + 1)
    src = f"class A:\n{deep}def f(self):\n{deep}    return 1\n"
    assert blanked(src) == src
    shallow = " " * MAX_DEPTH
    src = f"class A:\n{shallow}def f(self):\n{shallow}    return 1\n"
    assert blanked(src) != src


def test_tab_indented_bodies_keep_their_tabs_before_the_statement() -> None:
    """Go's runtime-gdb.py: a tab-indented class whose methods' bodies, blanked to
    spaces, would sit at another depth than their headers."""
    src = "class A:\n\tdef f(self):\n\t\treturn 1\n\n\tdef g(self):\n\t\tx = 2\n\t\treturn x\n"
    assert blanked(src).split("\n")[2] == "\t\t0       "
    syms = {(s.name, s.line, s.end_line) for s in PythonPlugin().extract(src.encode())}
    assert syms == {("A", 1, 7), ("f", 2, 3), ("g", 5, 7)}
