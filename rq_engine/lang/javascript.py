"""JavaScript / JSX plugin: ESM and CommonJS definitions (`exports.f =`, `Foo.prototype.m =`).

Imports nothing heavy at module level; tree_sitter loads inside extract() (see _tsjs).
The javascript grammar parses JSX too, so .jsx needs no second grammar.
"""

from __future__ import annotations

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Symbol
from rq_engine.lang import _refs, _tsjs
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "javascript",
    (".js", ".jsx", ".mjs", ".cjs"),
    constructor_name="constructor",
    # `foo.test.js`, `foo.spec.mjs`, `foo.test.cjsx`
    test_suffixes=tuple(
        f".{kind}.{cm}js{x}"
        for kind in ("test", "spec")
        for cm in ("", "c", "m")
        for x in ("", "x")
    ),
)


class JavaScriptPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.javascript(source)

    def extract(self, source: bytes) -> list[Symbol]:
        return _tsjs.extract("javascript", "javascript.scm", self.name, source)
