"""The common symbol model every language plugin emits. Knows no language.

Must not import anything outside the stdlib: it is on the `rq -q` hot path.
"""

from __future__ import annotations

from enum import StrEnum

from rq_engine.core.columns import ADDED, added_names
from rq_engine.core.record import Record


class Kind(StrEnum):
    """The shared kind vocabulary. A language may extend it here, never elsewhere."""

    MODULE = "module"  # Ruby module, Rust mod, TS namespace, Python/Go file-level module
    CLASS = "class"
    STRUCT = "struct"
    ENUM = "enum"
    UNION = "union"
    TRAIT = "trait"
    INTERFACE = "interface"
    TYPE = "type"  # type alias / Go named non-struct type
    FUNCTION = "function"
    METHOD = "method"
    CONSTANT = "constant"
    MACRO = "macro"
    FIELD = "field"
    VARIABLE = "variable"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"
    PROTECTED = "protected"
    UNKNOWN = "unknown"  # carries no ranking signal


#: the access keywords languages write as such (Java, PHP, C++ sections, Ruby)
ACCESS_WORDS: dict[str, Visibility] = {
    "public": Visibility.PUBLIC,
    "protected": Visibility.PROTECTED,
    "private": Visibility.PRIVATE,
}


class Symbol(Record):
    """One definition a developer might jump to.

    `parent` is the enclosing symbol's qualified name in the language's own form
    (`Foo::Bar` for Ruby and Rust, `Foo.Bar` elsewhere): lexical nesting only,
    never inheritance or references. `line`/`end_line` are 1-based and inclusive.
    `repository` is empty when a plugin emits it; the indexer owns that binding.

    A slotted Record, not a frozen dataclass: a cold index builds one per
    definition (43k for Django, in the parse workers), and the frozen dataclass's
    `object.__setattr__` per field cost ~1 µs each, 3x this. A plugin may finish
    one it is building (Ruby's `private :foo` sets the visibility of an earlier
    def); once emitted, treat it as immutable.
    """

    __slots__ = (
        "name",
        "kind",
        "line",
        "end_line",
        "parent",
        "visibility",
        "language",
        "repository",
        *added_names(),  # the facts declared in core/columns.py since m001
    )

    def __init__(
        self,
        name: str,
        kind: Kind,
        line: int,
        end_line: int,
        parent: str | None = None,
        visibility: Visibility = Visibility.UNKNOWN,
        language: str = "",
        repository: str = "",
    ) -> None:
        self.name = name
        self.kind = kind
        self.line = line
        self.end_line = end_line
        self.parent = parent
        self.visibility = visibility
        self.language = language
        self.repository = repository
        for c in ADDED:  # set by the plugin that knows the fact; the default until then
            setattr(self, c.name, c.default)

    def qualified(self, sep: str = ".") -> str:
        return f"{self.parent}{sep}{self.name}" if self.parent else self.name
