"""Record: the one base class of the engine's value objects. Stdlib only, no `typing`.

Every path imports it: `rq -q` on a hit and `rq --index` at start-up. `dataclasses`
would cost ~7 ms of import there (inspect, with ast, dis and tokenize) of a 50 ms
whole-process budget, and ~0.5 ms a class to build; `typing` ~3 ms. A subclass is
written one of two ways, and either way gets equality, hashing and a repr over its
fields (its bases' first, in declaration order):

- Fields annotated, as a dataclass: Record makes them the `__slots__` and, unless
  the class writes `__init__`, generates one taking them in order; a class-level
  default or `field(default_factory=...)` makes a parameter optional. Building the
  `__init__` (exec, once per class) costs ~0.05 ms; type checkers read it as a
  dataclass's (PEP 681).
- `__slots__` and `__init__` written by hand: the classes the query path imports
  (`Symbol`, `Query`, `Row`, `Candidate`, ...), so a hit compiles no code at start-up.

Instances have no `__dict__`: a misspelt attribute is an error, and an instance is
smaller. `__hash__ = None` in a class keeps it unhashable.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:

    def dataclass_transform(**_: object) -> Callable[[object], object]:
        """PEP 681's marker does nothing at run time; type checkers read the import above."""
        return lambda cls: cls


_MISSING: Any = object()


class _Field:
    __slots__ = ("default_factory",)

    def __init__(self, default_factory: Callable[[], object]) -> None:
        self.default_factory = default_factory


def field(*, default_factory: Callable[[], _T]) -> _T:
    """A default built afresh for each instance (`errors: list[str] = field(default_factory=list)`)."""
    return _Field(default_factory)  # type: ignore[return-value]


class _RecordType(type):
    """Builds a Record subclass: `__slots__` and `__init__` from its annotations where it
    does not write them, and `_fields` (its bases' fields, then its own)."""

    def __new__(
        mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], /, **kw: Any
    ) -> _RecordType:
        inherited: tuple[str, ...] = ()
        for base in bases:
            inherited += getattr(base, "_fields", ())
        if "__slots__" in ns:  # written by hand, and so is __init__
            own = ns["__slots__"]
            own = (own,) if isinstance(own, str) else tuple(own)
            if own and "__init__" not in ns:
                raise TypeError(f"{name}: a class that writes __slots__ writes __init__ too")
        else:
            notes = ns.get("__annotations__", {})
            own = tuple(n for n, t in notes.items() if not _is_classvar(t))
            # a slot may not share its name with a class attribute: defaults go to __init__
            defaults = {n: ns.pop(n) for n in own if n in ns}
            ns["__slots__"] = own
            if own and "__init__" not in ns:
                if inherited:
                    raise TypeError(f"{name}: write __init__ to extend {bases[0].__name__}")
                ns["__init__"] = _init(ns.get("__qualname__", name), own, defaults)
        ns["_fields"] = inherited + own
        return super().__new__(mcs, name, bases, ns, **kw)


def _is_classvar(note: object) -> bool:
    # annotations are strings here (`from __future__ import annotations`)
    return isinstance(note, str) and note.startswith(("ClassVar", "typing.ClassVar"))


def _init(qualname: str, names: tuple[str, ...], defaults: dict[str, object]) -> object:
    env: dict[str, object] = {"_MISSING": _MISSING}
    params, body = [], []
    for n in names:
        default = defaults.get(n, _MISSING)
        if isinstance(default, _Field):
            env[f"_f_{n}"] = default.default_factory
            params.append(f"{n}=_MISSING")
            body.append(f" self.{n} = _f_{n}() if {n} is _MISSING else {n}")
        elif default is not _MISSING:
            env[f"_d_{n}"] = default
            params.append(f"{n}=_d_{n}")
            body.append(f" self.{n} = {n}")
        else:
            params.append(n)
            body.append(f" self.{n} = {n}")
    src = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body)
    exec(src, env)  # noqa: S102 - generated from the class's own field names
    init: Any = env["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    return init


@dataclass_transform(field_specifiers=(field,))
class Record(metaclass=_RecordType):
    """Equality, hash and repr over the fields, in declaration order."""

    __slots__: tuple[str, ...] = ()
    _fields: ClassVar[tuple[str, ...]]  # set by _RecordType: bases' fields, then the class's

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({fields})"
