"""Golden extraction tests for the JavaScript plugin (fixtures/javascript), robustness, registry."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rq_engine.core.model import Kind, Symbol
from rq_engine.lang import registry
from rq_engine.lang.javascript import JavaScriptPlugin
from tests.conftest import corpus

FIXTURES = Path(__file__).parent / "fixtures" / "javascript"


def table(symbols: list[Symbol]) -> list[str]:
    return [
        f"{s.line}\t{s.end_line}\t{s.kind.value}\t{s.visibility.value}\t{s.parent or '-'}\t{s.name}"
        for s in symbols
    ]


def expected(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


@pytest.mark.parametrize("fixture", ["commonjs.js", "module.jsx"])
def test_golden(fixture: str) -> None:
    syms = JavaScriptPlugin().extract((FIXTURES / fixture).read_bytes())
    assert table(syms) == expected(FIXTURES / f"{fixture}.expected")
    assert {s.language for s in syms} == {"javascript"}


def test_callbacks_and_locals_are_not_definitions() -> None:
    src = b"subscribe({ next: (x) => x, error() {} });\nfunction f() { const n = 1; let o = { m() {} }; }\n"
    got = [(s.name, s.kind) for s in JavaScriptPlugin().extract(src)]
    assert got == [("f", Kind.FUNCTION)]


@pytest.mark.parametrize("seed", range(3))
def test_never_raises_on_garbage_or_truncated_input(seed: int) -> None:
    plugin = JavaScriptPlugin()
    src = (FIXTURES / "commonjs.js").read_bytes() + (FIXTURES / "module.jsx").read_bytes()
    rng = random.Random(seed)
    cases = [b"", b"\xff\xfe\x00", bytes(rng.randrange(256) for _ in range(2000)), b"[" * 5000]
    cases += [src[: rng.randrange(len(src))] for _ in range(20)]
    for case in cases:
        syms = plugin.extract(case)
        assert all(1 <= s.line <= s.end_line for s in syms)


def test_plugin_agrees_with_registry_data() -> None:
    p = registry.plugin("javascript")
    assert isinstance(p, JavaScriptPlugin)
    assert p.constructor_name == registry.constructor_names()["javascript"] == "constructor"
    assert p.scope_separator == registry.scope_separators()["javascript"]
    for path in ("a.js", "a.jsx", "a.mjs", "a.cjs"):
        assert registry.language_for_path(path) == "javascript"


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
