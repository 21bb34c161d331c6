"""Extension → plugin registry, built from core/languages.py. Plugins are imported on first use only.

Every language's data is its plugin module's SPEC (core/langspec.LanguageSpec);
core/languages.py gathers them (generated: `make languages`), so asking "is
this a source file?", "how is this name displayed?" or "what is a constructor
called?" imports no plugin and no tree-sitter: the `rq -q` hot path asks them.
Adding a language = its plugin module, its query file, its tests (and
`make languages`); nothing here changes.
"""

from __future__ import annotations

import os

from rq_engine.core.langspec import CLASS_NAME
from rq_engine.core.languages import SPECS

# Annotations only: base pulls in typing and core.model (~3 ms), which the
# `rq -q` hot path (qualify, constructor_names) never needs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.lang.base import LanguagePlugin

_SPECS = {spec.name: spec for spec in SPECS}
# Files whose whole name (no extension) marks a language.
_FILENAMES: dict[str, str] = {f: spec.name for spec in SPECS for f in spec.filenames}
_EXT_TO_LANG: dict[str, str] = {ext: spec.name for spec in SPECS for ext in spec.extensions}
_loaded: dict[str, LanguagePlugin] = {}

__all__ = [
    "CLASS_NAME",
    "constructor_names",
    "extensions",
    "language_for_path",
    "languages",
    "plugin",
    "plugin_for_path",
    "qualify",
    "scope_separators",
]


def language_for_path(path: str) -> str | None:
    """The language id for a file path, or None when no plugin handles it."""
    base = os.path.basename(path)
    if base in _FILENAMES:
        return _FILENAMES[base]
    _, ext = os.path.splitext(base)
    return _EXT_TO_LANG.get(ext.lower())


def languages() -> list[str]:
    return list(_SPECS)


def extensions() -> list[str]:
    """Every file extension a plugin reads (lower case, with the dot)."""
    return list(_EXT_TO_LANG)


def plugin(language: str) -> LanguagePlugin:
    """The plugin instance for a language id (imported and cached on first use)."""
    p = _loaded.get(language)
    if p is None:
        module, cls = _SPECS[language].plugin.split(":")
        import importlib  # (~0.4 ms with warnings: only when a plugin is loaded)

        p = getattr(importlib.import_module(module), cls)()
        _loaded[language] = p
    return p


def plugin_for_path(path: str) -> LanguagePlugin | None:
    lang = language_for_path(path)
    return plugin(lang) if lang else None


def constructor_names() -> dict[str, str]:
    """language id -> constructor name (or CLASS_NAME), for the languages that have one."""
    return {s.name: s.constructor_name for s in SPECS if s.constructor_name is not None}


def qualify(language: str, parent: str | None, name: str, kind: str) -> str:
    """The display form of a qualified name, in the language's own notation.

    Ruby writes instance methods `Foo::Bar#baz`, Rust `a::b::C`, PHP
    `App\\Http\\Kernel::handle`, everyone else `a.b.C` (each spec says how).
    """
    spec = _SPECS.get(language)
    if spec is None:
        return f"{parent}.{name}" if parent else name
    return spec.qualify(parent, name, kind)


def scope_separators() -> dict[str, str]:
    """language id -> the separator of its stored parent chains."""
    return {s.name: s.scope_separator for s in SPECS}
