"""Golden extraction tests for the Rust plugin (fixtures/rust), robustness, registry agreement."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rq_engine.core.model import Symbol
from rq_engine.lang import registry
from rq_engine.lang.rust import RustPlugin
from tests.conftest import corpus

FIXTURES = Path(__file__).parent / "fixtures" / "rust"


def table(symbols: list[Symbol]) -> list[str]:
    return [
        f"{s.line}\t{s.end_line}\t{s.kind.value}\t{s.visibility.value}\t{s.parent or '-'}\t{s.name}"
        for s in symbols
    ]


def expected(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_golden_sample() -> None:
    src = (FIXTURES / "sample.rs").read_bytes()
    syms = RustPlugin().extract(src)
    assert table(syms) == expected(FIXTURES / "sample.rs.expected")
    assert {s.language for s in syms} == {"rust"}


def test_macro_block_items_keep_absolute_lines_when_nested_deep() -> None:
    src = b"a! {\n b! {\n  c! {\n   d! {\n    e! {\n     fn deep() {}\n    }\n   }\n  }\n }\n}\n"
    syms = RustPlugin().extract(src)
    # four levels are re-parsed (MAX_MACRO_DEPTH); the fifth is left as tokens
    assert [(s.name, s.line) for s in syms] == []
    src4 = b"a! {\n b! {\n  c! {\n   d! {\n     fn deep() {}\n   }\n  }\n }\n}\n"
    assert [(s.name, s.line, s.end_line) for s in RustPlugin().extract(src4)] == [("deep", 5, 5)]


def test_impl_of_path_and_generic_types_names_the_base_type() -> None:
    src = b"mod m {\n impl<T> a::b::Wrapper<Vec<T>> { fn get(&self) {} }\n impl dyn Trait { fn t() {} }\n}\n"
    got = [(s.parent, s.name) for s in RustPlugin().extract(src) if s.kind.value == "method"]
    assert got == [("m::Wrapper", "get"), ("m::Trait", "t")]


@pytest.mark.parametrize("seed", range(5))
def test_never_raises_on_garbage_or_truncated_input(seed: int) -> None:
    plugin = RustPlugin()
    src = (FIXTURES / "sample.rs").read_bytes()
    rng = random.Random(seed)
    cases = [b"", b"\xff\xfe\x00", bytes(rng.randrange(256) for _ in range(2000)), b"{" * 5000]
    cases += [src[: rng.randrange(len(src))] for _ in range(20)]
    cases += [src.replace(b"}", b"", rng.randrange(1, 10))]
    for case in cases:
        syms = plugin.extract(case)
        assert all(1 <= s.line <= s.end_line for s in syms)


def test_plugin_agrees_with_registry_data() -> None:
    p = registry.plugin("rust")
    assert isinstance(p, RustPlugin)
    assert p.constructor_name == registry.constructor_names().get("rust")
    assert p.scope_separator == registry.scope_separators()["rust"]
    assert registry.language_for_path("src/lib.rs") == "rust"


@pytest.mark.corpus
def test_tokio_definitions_the_benchmark_expects() -> None:
    root = corpus("tokio") / "tokio-1.24.2" / "src"
    want = {
        ("net/tcp/listener.rs", "bind", 101, "TcpListener"),  # inside cfg_not_wasi! { impl … }
        ("net/tcp/listener.rs", "TcpListener", 55, None),  # inside cfg_net! { … }
        ("runtime/runtime.rs", "new", 131, "Runtime"),
        ("runtime/runtime.rs", "block_on", 270, "Runtime"),
        ("sync/semaphore.rs", "Semaphore", 79, None),
        ("sync/mutex.rs", "lock", 339, "Mutex"),
        ("task/blocking.rs", "spawn_blocking", 204, None),
        ("runtime/builder.rs", "new_multi_thread", 217, "Builder"),
    }
    for rel, name, line, parent in sorted(want):
        syms = RustPlugin().extract((root / rel).read_bytes())
        assert any(s.name == name and s.line == line and s.parent == parent for s in syms), (
            f"{rel}:{line} {parent}::{name}"
        )
