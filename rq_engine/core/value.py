"""@value: dataclass-like classes for the indexer's start-up path. Stdlib only.

`rq --index` imports the indexer, walker, pool and store (nine value classes):
`dataclasses` cost it ~7 ms of import (inspect, ast, dis, tokenize) plus ~0.5 ms
a class to build, all before the first file is parsed — in a Django cold index
of ~1.7 s that is measured against `ctags -R`. `value` builds __init__ from the
annotations the same way in ~0.05 ms a class, and type checkers read the
decorated classes as dataclasses (PEP 681). `typing` (~3 ms to import) is for
the type checker only: a search revalidating one edited file imports the
indexer, and pays for every import here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    _T = TypeVar("_T")
else:

    def dataclass_transform(**_: object) -> Callable[[object], object]:
        """PEP 681's marker does nothing at run time; type checkers read the import above."""
        return lambda fn: fn


_MISSING: Any = object()


class _Field:
    __slots__ = ("default_factory",)

    def __init__(self, default_factory: Callable[[], object]) -> None:
        self.default_factory = default_factory


def field(*, default_factory: Callable[[], _T]) -> _T:
    """A default built afresh for each instance (`errors: list[str] = field(default_factory=list)`)."""
    return _Field(default_factory)  # type: ignore[return-value]


if TYPE_CHECKING:

    @overload
    def value(cls: type[_T], /) -> type[_T]: ...
    @overload
    def value(*, slots: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field,))
def value(cls: Any = None, /, *, slots: bool = False) -> Any:
    """Give `cls` an __init__ over its annotated fields (in order, class-level defaults
    kept), equality and a repr. Instances are plain objects: treat frozen ones as such.

    `@value(slots=True)`: the class is rebuilt with `__slots__` of its fields (no
    instance dict: smaller, and a misspelt attribute is an error), as dataclasses'
    `slots=True` does; a result type a query makes many of is declared this way,
    its fields written once (search/types.Hit)."""
    if cls is None:
        return lambda c: _value(c, slots)
    return _value(cls, slots)


def _value(cls: Any, slots: bool) -> Any:
    names = list(cls.__dict__.get("__annotations__", {}))
    env: dict[str, object] = {"_MISSING": _MISSING}
    params, body = [], []
    for n in names:
        default = cls.__dict__.get(n, _MISSING)
        if isinstance(default, _Field):
            env[f"_f_{n}"] = default.default_factory
            params.append(f"{n}=_MISSING")
            body.append(f" self.{n} = _f_{n}() if {n} is _MISSING else {n}")
            delattr(cls, n)
        elif default is not _MISSING:
            env[f"_d_{n}"] = default
            params.append(f"{n}=_d_{n}")
            body.append(f" self.{n} = {n}")
        else:
            params.append(n)
            body.append(f" self.{n} = {n}")
    src = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or " pass")
    exec(src, env)  # noqa: S102 - generated from the class's own field names
    init = env["__init__"]
    fields_ = tuple(names)

    def values(self: object) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in fields_)

    def eq(self: object, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented  # type: ignore[no-any-return]
        return bool(values(self) == values(other))

    def rep(self: object) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in fields_)})"

    methods = {
        "__init__": init,
        "__eq__": eq,
        "__hash__": lambda self: hash(values(self)),
        "__repr__": rep,
    }
    if slots:
        # class-level defaults moved into __init__ above; a slot may not shadow one
        ns = {k: v for k, v in cls.__dict__.items() if k not in names and k != "__dict__"}
        ns.pop("__weakref__", None)
        ns.update(methods, __slots__=fields_)
        if cls.__dict__.get("__hash__", 0) is None:  # declared unhashable: stays so
            ns["__hash__"] = None
        return type(cls)(cls.__name__, cls.__bases__, ns)
    for name, fn in methods.items():
        setattr(cls, name, fn)
    return cls
