"""Slotted value objects without `dataclasses` (stdlib only, on the `rq -q` hot path).

`dataclasses` imports `inspect` (and with it ast, dis, tokenize): ~7 ms of a
50 ms whole-process budget, measured with hyperfine. Classes on the query path
write their `__init__` by hand and inherit equality, hashing and repr from
`__slots__` here.
"""

from __future__ import annotations


class Record:
    """Equality, hash and repr over the subclass's `__slots__`, in declaration order."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"
