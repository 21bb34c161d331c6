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
    expected,
    rows,
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


@pytest.mark.parametrize("newline", [b"\r", b"\r\n"])
def test_old_mac_and_windows_line_endings_keep_the_golden_lines(newline: bytes) -> None:
    # the golden sample with every `\n` replaced: same rows, same line numbers
    path = FIXTURES / "python" / "sample.py"
    src = path.read_bytes().replace(b"\n", newline)
    assert rows(PythonPlugin().extract(src)) == expected(path)


def test_mixed_line_endings_count_every_break() -> None:
    src = b"class A:\r    def m(self):\r\n        pass\n\rdef f():\r    pass\r"
    got = [(s.name, s.line, s.end_line) for s in PythonPlugin().extract(src)]
    assert got == [("A", 1, 3), ("m", 2, 3), ("f", 5, 6)]
