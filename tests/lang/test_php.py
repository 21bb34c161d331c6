"""PHP plugin: golden symbol tables (unbraced and braced namespaces), robustness, registry agreement."""

from __future__ import annotations

import pytest

from rq_engine.core.model import Kind
from rq_engine.lang import registry
from rq_engine.lang.php import PhpPlugin
from tests.conftest import corpus, have
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
    ctags_recall,
)


def test_golden_sample() -> None:
    check_golden("php", "sample.php")


def test_golden_braced_namespaces() -> None:
    check_golden("php", "braced.php")


def test_never_raises_on_garbage() -> None:
    check_never_raises(PhpPlugin(), FIXTURES / "php" / "sample.php")
    check_never_raises(PhpPlugin(), FIXTURES / "php" / "braced.php")


def test_registry_agrees() -> None:
    check_registry_agrees(PhpPlugin())
    assert PhpPlugin.constructor_name == "__construct"
    assert PhpPlugin.scope_separator == "\\"


def test_qualified_names_read_as_php() -> None:
    syms = {s.name: s for s in PhpPlugin().extract((FIXTURES / "php" / "sample.php").read_bytes())}
    shown = {
        n: registry.qualify("php", syms[n].parent, n, syms[n].kind)
        for n in ("Kernel", "handle", "HEADER", "Active", "helper", "Http", "APP_START")
    }
    assert shown == {
        "Kernel": "App\\Http\\Kernel",
        "handle": "App\\Http\\Kernel::handle",
        "HEADER": "App\\Http\\Kernel::HEADER",
        "Active": "App\\Http\\Status::Active",
        "helper": "App\\Http\\helper",
        "Http": "App\\Http",
        "APP_START": "APP_START",  # define() names a global constant
    }


def test_a_later_namespace_replaces_the_earlier_one() -> None:
    src = b"<?php\nnamespace A;\nclass X {}\nnamespace B;\nclass Y {}\n"
    rows = [(s.name, s.kind, s.parent) for s in PhpPlugin().extract(src)]
    assert rows == [
        ("A", Kind.MODULE, None),
        ("X", Kind.CLASS, "A"),
        ("B", Kind.MODULE, None),
        ("Y", Kind.CLASS, "B"),
    ]


def test_html_around_php_and_no_namespace() -> None:
    src = b"<html><?php function page() {} ?><p>x</p><?php class View {} ?></html>"
    assert [(s.name, s.parent) for s in PhpPlugin().extract(src)] == [
        ("page", None),
        ("View", None),
    ]


def test_promoted_parameters_by_value_and_by_reference_are_fields() -> None:
    src = (
        b"<?php\nclass Cache {\n    public function __CONSTRUCT(\n"
        b"        protected array &$store,\n        #[Sensitive] private string $key,\n"
        b"        int $ttl,\n    ) {}\n    public function put(int $ttl) {}\n}\n"
    )
    rows = [(s.name, s.kind, s.line, s.visibility.value) for s in PhpPlugin().extract(src)]
    assert [r for r in rows if r[1] is Kind.FIELD] == [
        ("store", Kind.FIELD, 4, "protected"),
        ("key", Kind.FIELD, 5, "private"),
    ]


@pytest.mark.corpus
@pytest.mark.skipif(not have("ctags"), reason="universal-ctags not installed")
def test_recall_against_ctags_on_laravel_database() -> None:
    root = corpus("laravel") / "Illuminate" / "Database"
    # ctags 5.9 files methods under `function`; namespaces are named whole (`A\B`)
    assert ctags_recall(root, "php", "PHP", {"class", "interface", "trait", "function"}) >= 0.95
