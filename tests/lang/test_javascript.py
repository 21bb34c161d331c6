"""Golden extraction tests for the JavaScript plugin (fixtures/javascript), robustness, registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from rq_engine.core.model import Kind
from rq_engine.lang.javascript import JavaScriptPlugin
from tests.conftest import corpus
from tests.lang.golden_tables import (
    check_never_raises,
    check_registry_agrees,
    expected_lines,
    line_table,
)

FIXTURES = Path(__file__).parent / "fixtures" / "javascript"


@pytest.mark.parametrize("fixture", ["commonjs.js", "module.jsx", "es5.js"])
def test_golden(fixture: str) -> None:
    syms = JavaScriptPlugin().extract((FIXTURES / fixture).read_bytes())
    assert line_table(syms) == expected_lines(FIXTURES / f"{fixture}.expected")
    assert {s.language for s in syms} == {"javascript"}


def test_callbacks_and_locals_are_not_definitions() -> None:
    src = b"subscribe({ next: (x) => x, error() {} });\nfunction f() { const n = 1; let o = { m() {} }; }\n"
    got = [(s.name, s.kind) for s in JavaScriptPlugin().extract(src)]
    assert got == [("f", Kind.FUNCTION)]


def test_never_raises_on_garbage_or_truncated_input() -> None:
    check_never_raises(JavaScriptPlugin(), FIXTURES / "commonjs.js")


def test_plugin_agrees_with_registry_data() -> None:
    check_registry_agrees(JavaScriptPlugin())


@pytest.mark.corpus
def test_rxjs_compiled_commonjs_keeps_classes_and_prototype_methods() -> None:
    path = corpus("rxjs") / "package/dist/cjs/internal/Subscription.js"
    syms = JavaScriptPlugin().extract(path.read_bytes())
    names = {(s.parent, s.name, s.kind) for s in syms}
    assert (None, "Subscription", Kind.FUNCTION) in names or (
        None,
        "Subscription",
        Kind.CLASS,
    ) in names
    assert ("Subscription", "unsubscribe", Kind.METHOD) in names
    assert ("Subscription", "add", Kind.METHOD) in names
