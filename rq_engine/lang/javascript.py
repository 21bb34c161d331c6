"""JavaScript / JSX plugin: ESM and CommonJS definitions (`exports.f =`, `Foo.prototype.m =`).

Imports nothing heavy at module level; tree_sitter loads inside extract() (see _tsjs).
The javascript grammar parses JSX too, so .jsx needs no second grammar.
"""

from __future__ import annotations

from rq_engine.core.model import Symbol
from rq_engine.lang import _tsjs
from rq_engine.lang.base import LanguagePlugin

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import ClassVar


class JavaScriptPlugin(LanguagePlugin):
    name: ClassVar[str] = "javascript"
    extensions: ClassVar[tuple[str, ...]] = (".js", ".jsx", ".mjs", ".cjs")
    scope_separator: ClassVar[str] = "."
    constructor_name: ClassVar[str | None] = "constructor"

    def extract(self, source: bytes) -> list[Symbol]:
        return _tsjs.extract("javascript", "javascript.scm", self.name, source)
