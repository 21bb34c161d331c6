"""Extension → plugin registry. Plugins are imported on first use only.

Adding a language = one module under rq_engine/lang plus one line in _PLUGINS.
"""

from __future__ import annotations

import os

# Annotations only: base pulls in typing and core.model (~3 ms), which the
# `rq -q` hot path (qualify, constructor_names) never needs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.lang.base import LanguagePlugin

# language id -> (module, class name, extensions). Kept as data so that asking
# "is this a source file?" costs no import of tree-sitter or of any plugin.
_PLUGINS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "python": ("rq_engine.lang.python", "PythonPlugin", (".py", ".pyi")),
    "ruby": ("rq_engine.lang.ruby", "RubyPlugin", (".rb", ".rake", ".gemspec")),
    "go": ("rq_engine.lang.go", "GoPlugin", (".go",)),
    "rust": ("rq_engine.lang.rust", "RustPlugin", (".rs",)),
    "typescript": ("rq_engine.lang.typescript", "TypeScriptPlugin", (".ts", ".mts", ".cts")),
    "tsx": ("rq_engine.lang.typescript", "TsxPlugin", (".tsx",)),
    "javascript": (
        "rq_engine.lang.javascript",
        "JavaScriptPlugin",
        (".js", ".jsx", ".mjs", ".cjs"),
    ),
    "java": ("rq_engine.lang.java", "JavaPlugin", (".java",)),
    "php": ("rq_engine.lang.php", "PhpPlugin", (".php",)),
    "c": ("rq_engine.lang.c", "CPlugin", (".c",)),
    # every `.h` too: the plugin reads a header with no C++ in it as C (lang/cpp.py)
    "cpp": (
        "rq_engine.lang.cpp",
        "CppPlugin",
        (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h"),
    ),
}

# Files whose whole name (no extension) marks a language.
_FILENAMES: dict[str, str] = {"Rakefile": "ruby", "Gemfile": "ruby"}

_EXT_TO_LANG: dict[str, str] = {
    ext: lang for lang, (_, _, exts) in _PLUGINS.items() for ext in exts
}
_loaded: dict[str, LanguagePlugin] = {}

#: a plugin's `constructor_name` when a constructor is named after its class (Java):
#: `Foo.new` then looks for a method `Foo` whose parent chain ends in `Foo`
CLASS_NAME = "<class name>"


def language_for_path(path: str) -> str | None:
    """The language id for a file path, or None when no plugin handles it."""
    base = os.path.basename(path)
    if base in _FILENAMES:
        return _FILENAMES[base]
    _, ext = os.path.splitext(base)
    return _EXT_TO_LANG.get(ext.lower())


def languages() -> list[str]:
    return list(_PLUGINS)


def extensions() -> list[str]:
    """Every file extension a plugin reads (lower case, with the dot)."""
    return list(_EXT_TO_LANG)


def plugin(language: str) -> LanguagePlugin:
    """The plugin instance for a language id (imported and cached on first use)."""
    p = _loaded.get(language)
    if p is None:
        module, cls, _ = _PLUGINS[language]
        import importlib  # (~0.4 ms with warnings: only when a plugin is loaded)

        p = getattr(importlib.import_module(module), cls)()
        _loaded[language] = p
    return p


def plugin_for_path(path: str) -> LanguagePlugin | None:
    lang = language_for_path(path)
    return plugin(lang) if lang else None


def constructor_names() -> dict[str, str]:
    """language id -> constructor name, without importing any plugin module.

    Mirrors each plugin's `constructor_name`; a test keeps the two in agreement.
    """
    return {
        "python": "__init__",
        "ruby": "initialize",
        "typescript": "constructor",
        "tsx": "constructor",
        "javascript": "constructor",
        "java": CLASS_NAME,
        "php": "__construct",
        "cpp": CLASS_NAME,
    }


def qualify(language: str, parent: str | None, name: str, kind: str) -> str:
    """The display form of a qualified name, in the language's own notation.

    Ruby writes instance methods `Foo::Bar#baz`, Rust `a::b::C`, PHP
    `App\\Http\\Kernel::handle`, everyone else `a.b.C`. Pure data, so faces can
    call it on the hot path.
    """
    if not parent:
        return name
    if language == "ruby":
        return f"{parent}#{name}" if kind == "method" else f"{parent}::{name}"
    if language == "rust" or language == "cpp":
        return f"{parent}::{name}"
    if language == "php":
        # namespaces and classes chain with `\`, members follow `::`
        return f"{parent}::{name}" if kind in _PHP_MEMBERS else f"{parent}\\{name}"
    return f"{parent}.{name}"


def scope_separators() -> dict[str, str]:
    """language id -> scope separator, without importing plugins (test keeps it in sync)."""
    seps = {lang: ("::" if lang in ("ruby", "rust") else ".") for lang in _PLUGINS}
    seps["cpp"] = "::"
    seps["php"] = "\\"  # a parent chain: `Illuminate\Support\Collection` (lang/php.py)
    return seps


_PHP_MEMBERS = frozenset(("method", "constant", "field"))
