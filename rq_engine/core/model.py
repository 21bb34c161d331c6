"""The common symbol model every language plugin emits. Knows no language.

Must not import anything outside the stdlib: it is on the `rq -q` hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition a developer might jump to.

    `parent` is the enclosing symbol's qualified name in the language's own form
    (`Foo::Bar` for Ruby and Rust, `Foo.Bar` elsewhere): lexical nesting only,
    never inheritance or references. `line`/`end_line` are 1-based and inclusive.
    `repository` is empty when a plugin emits it; the indexer owns that binding.
    """

    name: str
    kind: Kind
    line: int
    end_line: int
    parent: str | None = None
    visibility: Visibility = Visibility.UNKNOWN
    language: str = ""
    repository: str = ""

    def qualified(self, sep: str = ".") -> str:
        return f"{self.parent}{sep}{self.name}" if self.parent else self.name
