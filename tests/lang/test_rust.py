"""Golden extraction tests for the Rust plugin (fixtures/rust), robustness, registry agreement."""

from __future__ import annotations

from pathlib import Path

import pytest

from rq_engine.lang.rust import RustPlugin
from tests.conftest import corpus
from tests.lang.golden_tables import (
    check_never_raises,
    check_registry_agrees,
    expected_lines,
    line_table,
)

FIXTURES = Path(__file__).parent / "fixtures" / "rust"


def test_golden_sample() -> None:
    src = (FIXTURES / "sample.rs").read_bytes()
    syms = RustPlugin().extract(src)
    assert line_table(syms) == expected_lines(FIXTURES / "sample.rs.expected")
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


def test_never_raises_on_garbage_or_truncated_input() -> None:
    check_never_raises(RustPlugin(), FIXTURES / "sample.rs")


def test_plugin_agrees_with_registry_data() -> None:
    check_registry_agrees(RustPlugin())


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
