"""Python plugin: golden symbol table, robustness, registry agreement."""

from __future__ import annotations

import pytest

from rq_engine.lang.python import PythonPlugin
from tests.conftest import corpus, have
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
    ctags_recall,
)


def test_golden_sample() -> None:
    check_golden("python", "sample.py")


def test_never_raises_on_garbage() -> None:
    check_never_raises(PythonPlugin(), FIXTURES / "python" / "sample.py")


def test_registry_agrees() -> None:
    check_registry_agrees(PythonPlugin())
    assert PythonPlugin.constructor_name == "__init__"


def test_locals_are_not_constants() -> None:
    src = b"def f():\n    LIMIT = 1\n    g = lambda: 0\nclass C:\n    def m(self):\n        X = 2\n"
    names = [s.name for s in PythonPlugin().extract(src)]
    assert names == ["f", "C", "m"]


@pytest.mark.corpus
@pytest.mark.skipif(not have("ctags"), reason="universal-ctags not installed")
def test_recall_against_ctags_on_django_db() -> None:
    root = corpus("django") / "django" / "db"
    assert ctags_recall(root, "python", "Python", {"class", "function", "member"}) >= 0.95
