"""The LanguagePlugin seam: what one language must tell the engine.

A plugin turns source bytes into the common symbol model (core.model.Symbol).
Nothing outside rq_engine/lang knows any language. Tree-sitter is imported
lazily inside extract() (the grammar loader), never at import time of this module,
so the registry can be consulted on the `rq -q` hot path for free.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Symbol

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import ClassVar


class LanguagePlugin(ABC):
    """A language's extraction. What the engine knows of the language as data
    (extensions, separators, constructor, display, test-file names) is its
    `spec`, a LanguageSpec declared beside the class; the class attributes below
    are read from it, so each fact is written once."""

    #: the language as data (core/langspec.py): every plugin sets it
    spec: ClassVar[LanguageSpec]
    #: language id stored in files.language / symbols.language ("python", "tsx", ...)
    name: ClassVar[str]
    #: file extensions, lower-case, with the dot (".py")
    extensions: ClassVar[tuple[str, ...]]
    #: separator between a parent chain and a member in this language's qualified form
    scope_separator: ClassVar[str] = "."
    #: the name the language gives a constructor (`Foo.new` finds it), or None
    constructor_name: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            cls.name = spec.name
            cls.extensions = spec.extensions
            cls.scope_separator = spec.scope_separator
            cls.constructor_name = spec.constructor_name

    @abstractmethod
    def extract(self, source: bytes) -> list[Symbol]:
        """Every definition a developer would jump to, in source order.

        Must never raise on malformed input: Tree-sitter recovers from syntax
        errors, and whatever parsed is returned.
        """

    def references(self, source: bytes) -> set[tuple[str, str]]:
        """The (qualifier, name) pairs the file names: `io.Reader`, `ActiveRecord::Base`
        (lang/_refs.py). Counted per repository for the canonical prior (the scorer's
        `referenced`); a language without qualified names reports none."""
        return set()

    def qualified(self, parent: str | None, name: str) -> str:
        """How a child's `parent` is built from its enclosing symbol (nesting chain)."""
        return f"{parent}{self.scope_separator}{name}" if parent else name
