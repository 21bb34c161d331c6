"""TypeScript and TSX plugins: classes, interfaces, types, enums, namespaces, functions, members.

Imports nothing heavy at module level; tree_sitter loads inside extract() (see _tsjs).
Both grammars share node types, so both compile queries/typescript.scm.
"""

from __future__ import annotations

from rq_engine.core.model import Symbol
from rq_engine.lang import _tsjs
from rq_engine.lang.base import LanguagePlugin

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import ClassVar


class TypeScriptPlugin(LanguagePlugin):
    name: ClassVar[str] = "typescript"
    extensions: ClassVar[tuple[str, ...]] = (".ts", ".mts", ".cts")
    scope_separator: ClassVar[str] = "."
    constructor_name: ClassVar[str | None] = "constructor"
    grammar: ClassVar[str] = "typescript"

    def extract(self, source: bytes) -> list[Symbol]:
        return _tsjs.extract(self.grammar, "typescript.scm", self.name, source)


class TsxPlugin(TypeScriptPlugin):
    name: ClassVar[str] = "tsx"
    extensions: ClassVar[tuple[str, ...]] = (".tsx",)
    grammar: ClassVar[str] = "tsx"
