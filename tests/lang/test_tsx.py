"""Golden extraction tests for the TSX plugin (fixtures/tsx), robustness, registry agreement."""

from __future__ import annotations

from pathlib import Path

from rq_engine.lang.typescript import TsxPlugin, TypeScriptPlugin
from tests.lang.golden_tables import (
    check_never_raises,
    check_registry_agrees,
    expected_lines,
    line_table,
)

FIXTURES = Path(__file__).parent / "fixtures" / "tsx"


def test_golden_sample() -> None:
    syms = TsxPlugin().extract((FIXTURES / "sample.tsx").read_bytes())
    assert line_table(syms) == expected_lines(FIXTURES / "sample.tsx.expected")
    assert {s.language for s in syms} == {"tsx"}


def test_jsx_lines_starting_with_angle_brackets_are_not_rewritten() -> None:
    # the .ts signature-line repair must not touch TSX: there `<` starting a line is JSX
    src = b"export const A = () => (\n  <div>\n    <span />\n  </div>\n);\nexport function B() {}\n"
    got = [(s.name, s.line, s.end_line) for s in TsxPlugin().extract(src)]
    assert got == [("A", 1, 5), ("B", 6, 6)]


def test_tsx_grammar_is_needed_for_jsx() -> None:
    src = (FIXTURES / "sample.tsx").read_bytes()
    # the plain TypeScript grammar cannot read JSX: the two plugins must differ here
    assert line_table(TypeScriptPlugin().extract(src)) != line_table(TsxPlugin().extract(src))


def test_never_raises_on_garbage_or_truncated_input() -> None:
    check_never_raises(TsxPlugin(), FIXTURES / "sample.tsx")


def test_plugin_agrees_with_registry_data() -> None:
    check_registry_agrees(TsxPlugin())
