"""Lazy Tree-sitter loading: parsers and compiled .scm queries, cached per process.

tree-sitter and a grammar cost ~5 ms to load (the language pack's own __init__
~11 ms more, so it is bypassed: `_binding`). Only plugins' extract() paths use
this module (the indexer's workers, a search revalidating an edited file),
never `rq -q` on a hit.
"""

from __future__ import annotations

from functools import cache

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    import re
    from typing import Any


@cache
def pattern(source: bytes) -> re.Pattern[bytes]:
    """A regular expression compiled on first use, once per process: the body
    finders (_bodies, _cparse) build one per indentation depth they meet."""
    import re

    return re.compile(source)


def preload() -> None:
    """Import tree-sitter now: an indexer that will parse does it while `git ls-files`
    runs instead of after."""
    import tree_sitter  # noqa: F401


@cache
def language(name: str) -> Any:
    from tree_sitter import Language

    return Language(_binding(name))


def _binding(name: str) -> object:
    """The grammar's language capsule, loaded straight from the pack's `bindings/`.

    Importing `tree_sitter_language_pack` itself costs ~11 ms more: its __init__
    imports three separately packaged grammars and importlib.resources (tempfile,
    shutil, …) whichever grammar is asked for — paid by a search revalidating one
    edited file. The binding module's init symbol is PyInit_<name>, so it loads
    under a private package name; anything unexpected falls back to the pack's API.
    """
    import importlib.machinery
    import importlib.util
    import os

    spec = importlib.util.find_spec("tree_sitter_language_pack")  # finds, does not import
    for base in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = f"{base}/bindings/{name}{suffix}"
            if not os.path.exists(path):
                continue
            sub = importlib.util.spec_from_file_location(f"_rq_grammars.{name}", path)
            if sub is None or sub.loader is None:
                continue
            try:
                mod = importlib.util.module_from_spec(sub)
                sub.loader.exec_module(mod)
                return mod.language()
            except (ImportError, OSError, AttributeError):
                break
    from tree_sitter_language_pack import get_binding

    return get_binding(name)  # type: ignore[arg-type]


@cache
def parser(name: str) -> Any:
    from tree_sitter import Parser

    return Parser(language(name))


@cache
def query(grammar: str, file: str) -> Any:
    """Compile `rq_engine/lang/queries/<file>` against `grammar` once per process."""
    from tree_sitter import Query

    return Query(language(grammar), _query_text(file))


def _query_text(file: str) -> str:
    # The .scm files sit beside this module in every install rq supports (a
    # checkout, an editable or a wheel install); importlib.resources (~5 ms to
    # import) only for a zipped one.
    import os

    try:
        with open(os.path.join(os.path.dirname(__file__), "queries", file), encoding="utf-8") as f:
            return f.read()
    except OSError:
        from importlib import resources

        return resources.files("rq_engine.lang").joinpath("queries", file).read_text("utf-8")


def parse(grammar: str, source: bytes) -> Any:
    """Parse `source`; returns the tree (Tree-sitter recovers from syntax errors)."""
    return parser(grammar).parse(source)


def parse_outside(grammar: str, source: bytes, spans: list[tuple[int, int, int, int]]) -> Any:
    """Parse `source` without the regions `spans` names: (start byte, start row, end
    byte, end row) each, whole lines, in order, none overlapping (the function bodies
    a plugin never reads: lang/_bodies.py, lang/_cparse.py). Every node keeps the
    file's own byte offsets and lines (Tree-sitter's included ranges)."""
    if not spans:
        return parse(grammar, source)
    from tree_sitter import Range

    ranges = []
    pos, pos_row = 0, 0
    for start, start_row, end, end_row in spans:
        ranges.append(Range((pos_row, 0), (start_row, 0), pos, start))
        pos, pos_row = end, end_row
    ranges.append(Range((pos_row, 0), (0xFFFFFFFF, 0xFFFFFFFF), pos, 0xFFFFFFFF))
    p = _ranged(grammar)
    p.included_ranges = ranges
    return p.parse(source)


@cache
def _ranged(name: str) -> Any:
    """A second parser per grammar for parse_outside: its included ranges change with
    every file, and `parser()`'s must stay the whole file."""
    from tree_sitter import Parser

    return Parser(language(name))
