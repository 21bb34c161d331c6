"""TypeScript and TSX plugins: classes, interfaces, types, enums, namespaces, functions, members.

Imports nothing heavy at module level; tree_sitter loads inside extract() (see _tsjs).
Both grammars share node types, so both compile queries/typescript.scm.
"""

from __future__ import annotations

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Symbol
from rq_engine.lang import _refs, _tsjs
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "typescript",
    (".ts", ".mts", ".cts"),
    constructor_name="constructor",
    # `foo.test.ts`, `foo.spec.mts` (and `.ctsx`, `.mtsx`, as the JS names run)
    test_suffixes=tuple(
        f".{kind}.{cm}ts{x}"
        for kind in ("test", "spec")
        for cm in ("", "c", "m")
        for x in ("", "x")
        if cm or not x
    ),
)
TSX_SPEC = LanguageSpec(
    "tsx",
    (".tsx",),
    constructor_name="constructor",
    test_suffixes=(".test.tsx", ".spec.tsx"),
)

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import ClassVar


class TypeScriptPlugin(LanguagePlugin):
    spec = SPEC
    grammar: ClassVar[str] = "typescript"

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.javascript(source)

    def extract(self, source: bytes) -> list[Symbol]:
        return _tsjs.extract(self.grammar, "typescript.scm", self.name, source)


class TsxPlugin(TypeScriptPlugin):
    spec = TSX_SPEC
    grammar: ClassVar[str] = "tsx"
