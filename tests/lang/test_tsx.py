"""Golden extraction tests for the TSX plugin (fixtures/tsx), robustness, registry agreement."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rq_engine.core.model import Symbol
from rq_engine.lang import registry
from rq_engine.lang.typescript import TsxPlugin, TypeScriptPlugin

FIXTURES = Path(__file__).parent / "fixtures" / "tsx"


def table(symbols: list[Symbol]) -> list[str]:
    return [
        f"{s.line}\t{s.end_line}\t{s.kind.value}\t{s.visibility.value}\t{s.parent or '-'}\t{s.name}"
        for s in symbols
    ]


def expected(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_golden_sample() -> None:
    syms = TsxPlugin().extract((FIXTURES / "sample.tsx").read_bytes())
    assert table(syms) == expected(FIXTURES / "sample.tsx.expected")
    assert {s.language for s in syms} == {"tsx"}


def test_jsx_lines_starting_with_angle_brackets_are_not_rewritten() -> None:
    # the .ts signature-line repair must not touch TSX: there `<` starting a line is JSX
    src = b"export const A = () => (\n  <div>\n    <span />\n  </div>\n);\nexport function B() {}\n"
    got = [(s.name, s.line, s.end_line) for s in TsxPlugin().extract(src)]
    assert got == [("A", 1, 5), ("B", 6, 6)]


def test_tsx_grammar_is_needed_for_jsx() -> None:
    src = (FIXTURES / "sample.tsx").read_bytes()
    # the plain TypeScript grammar cannot read JSX: the two plugins must differ here
    assert table(TypeScriptPlugin().extract(src)) != table(TsxPlugin().extract(src))


@pytest.mark.parametrize("seed", range(3))
def test_never_raises_on_garbage_or_truncated_input(seed: int) -> None:
    plugin = TsxPlugin()
    src = (FIXTURES / "sample.tsx").read_bytes()
    rng = random.Random(seed)
    cases = [b"", b"<<<<>>>>", bytes(rng.randrange(256) for _ in range(2000)), b"<div>" * 3000]
    cases += [src[: rng.randrange(len(src))] for _ in range(20)]
    for case in cases:
        syms = plugin.extract(case)
        assert all(1 <= s.line <= s.end_line for s in syms)


def test_plugin_agrees_with_registry_data() -> None:
    p = registry.plugin("tsx")
    assert isinstance(p, TsxPlugin)
    assert p.name == "tsx"
    assert p.constructor_name == registry.constructor_names()["tsx"] == "constructor"
    assert p.scope_separator == registry.scope_separators()["tsx"]
    assert registry.language_for_path("ui/App.tsx") == "tsx"
