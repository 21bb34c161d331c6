"""Java plugin: golden symbol tables, robustness, registry agreement, the package rules."""

from __future__ import annotations

import pytest

from rq_engine.core.model import Kind, Visibility
from rq_engine.lang import registry
from rq_engine.lang.java import JavaPlugin
from tests.conftest import corpus, have
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
    ctags_recall,
)


def test_golden_sample() -> None:
    check_golden("java", "sample.java")


def test_golden_package_info() -> None:
    # a file that declares no type is the package's home: its one module symbol
    check_golden("java", "package-info.java")


def test_never_raises_on_garbage() -> None:
    check_never_raises(JavaPlugin(), FIXTURES / "java" / "sample.java")


def test_registry_agrees() -> None:
    check_registry_agrees(JavaPlugin())
    assert JavaPlugin.constructor_name == registry.CLASS_NAME
    assert registry.qualify("java", "java.util.Map", "Entry", "interface") == "java.util.Map.Entry"


def test_package_is_the_parent_of_top_level_types_only() -> None:
    src = b"package a.b;\nclass X { void m() {} }\n"
    rows = [(s.name, s.parent) for s in JavaPlugin().extract(src)]
    assert rows == [("X", "a.b"), ("m", "a.b.X")]
    # no package: no module anywhere, top-level types have no parent
    assert [(s.name, s.parent) for s in JavaPlugin().extract(b"class Y {}")] == [("Y", None)]


def test_package_module_only_where_no_type_is_declared() -> None:
    kinds = [s.kind for s in JavaPlugin().extract(b"package a.b;\nclass X {}\n")]
    assert Kind.MODULE not in kinds
    (module,) = JavaPlugin().extract(b"package a;\n")
    assert (module.name, module.parent, module.kind) == ("a", None, Kind.MODULE)


def test_only_static_final_fields_are_constants() -> None:
    src = (
        b"class X {\n"
        b"  static final int A = 1;\n"
        b"  final static int B = 2;\n"
        b"  static int c;\n"
        b"  final int d = 0;\n"
        b"  int e;\n"
        b"}\n"
    )
    names = [s.name for s in JavaPlugin().extract(src) if s.kind is Kind.CONSTANT]
    assert names == ["A", "B"]


def test_package_private_is_private_and_interface_members_are_public() -> None:
    src = b"interface I { void f(); class N {} }\nclass C { void g() {} }\n"
    vis = {s.name: s.visibility for s in JavaPlugin().extract(src)}
    assert vis == {
        "I": Visibility.PRIVATE,
        "f": Visibility.PUBLIC,
        "N": Visibility.PUBLIC,
        "C": Visibility.PRIVATE,
        "g": Visibility.PRIVATE,
    }


def test_method_bodies_are_not_walked() -> None:
    src = b"class X { void m() { class L { void n() {} } new Object() { void o() {} }; } }"
    assert [s.name for s in JavaPlugin().extract(src)] == ["X", "m"]


@pytest.mark.corpus
@pytest.mark.skipif(not have("ctags"), reason="universal-ctags not installed")
def test_recall_against_ctags_on_java_util_concurrent() -> None:
    root = corpus("jdk") / "java.base" / "java" / "util" / "concurrent"
    kinds = {"class", "interface", "enum", "annotation", "method"}
    assert ctags_recall(root, "java", "Java", kinds) >= 0.95
