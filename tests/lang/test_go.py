"""Go plugin: golden symbol table, robustness, registry agreement, receiver parsing."""

from __future__ import annotations

import pytest

from rq_engine.lang.go import GoPlugin, receiver_type
from tests.conftest import corpus, have
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
    ctags_recall,
)


def test_golden_sample() -> None:
    check_golden("go", "sample.go")


def test_never_raises_on_garbage() -> None:
    check_never_raises(GoPlugin(), FIXTURES / "go" / "sample.go")


def test_registry_agrees() -> None:
    check_registry_agrees(GoPlugin())
    assert GoPlugin.constructor_name is None


def test_receiver_type() -> None:
    assert receiver_type("(s *Server[K, V])") == "Server"
    assert receiver_type("(Foo)") == "Foo"
    assert receiver_type("(t *T)") == "T"
    assert receiver_type("(b *(Buf))") == "Buf"
    assert receiver_type("()") == ""


@pytest.mark.corpus
@pytest.mark.skipif(not have("ctags"), reason="universal-ctags not installed")
def test_recall_against_ctags_on_go_net_http() -> None:
    root = corpus("gostd") / "src" / "net" / "http"
    kinds = {"func", "methodSpec", "struct", "interface", "type"}
    assert ctags_recall(root, "go", "Go", kinds) >= 0.95
