"""core/record.Record, the engine's one value-object base: what a subclass gets."""

from __future__ import annotations

import pytest

from rq_engine.core.record import Record, field


class Walk(Record):
    paths: list[str]
    via: str
    note: str | None = None
    errors: list[str] = field(default_factory=list)


class Pair(Record):
    __slots__ = ("a", "b")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, a: int, b: int = 0) -> None:
        self.a = a
        self.b = b


class Tagged(Pair):
    __slots__ = ("tag",)

    def __init__(self, a: int, tag: str) -> None:
        super().__init__(a)
        self.tag = tag


def test_annotated_fields_make_the_slots_and_init() -> None:
    w = Walk(["a.py"], "git")
    assert (w.paths, w.via, w.note, w.errors) == (["a.py"], "git", None, [])
    assert Walk.__slots__ == ("paths", "via", "note", "errors")
    assert Walk([], "git").errors is not w.errors  # a factory's default is built afresh
    assert Walk([], "native", note="n", errors=["x"]).errors == ["x"]
    with pytest.raises(AttributeError):
        w.misspelt = 1  # type: ignore[attr-defined]
    assert not hasattr(w, "__dict__")


def test_equality_hash_and_repr_read_the_fields() -> None:
    assert Walk([], "git") == Walk([], "git") != Walk([], "native")
    assert repr(Walk([], "git")) == "Walk(paths=[], via='git', note=None, errors=[])"
    assert hash(Walk((), "git", errors=())) == hash(Walk((), "git", errors=()))  # type: ignore[arg-type]
    assert Walk([], "git").__eq__(("git",)) is NotImplemented


def test_a_class_written_by_hand_keeps_its_init_and_stays_unhashable() -> None:
    assert Pair(1) == Pair(1, 0) and Pair.__hash__ is None
    assert repr(Tagged(1, "t")) == "Tagged(a=1, b=0, tag='t')"  # the base's fields first
    assert Tagged(1, "t") != Tagged(1, "u")


def test_mistakes_fail_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="writes __init__ too"):

        class NoInit(Record):
            __slots__ = ("a",)

    with pytest.raises(TypeError, match="write __init__ to extend Walk"):

        class MoreWalk(Walk):
            extra: int
