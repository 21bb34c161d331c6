"""Lazy Tree-sitter loading: parsers and compiled .scm queries, cached per process.

tree-sitter and a grammar cost ~5 ms to load (the language pack's own __init__
~11 ms more, so it is bypassed: `_binding`; tree-sitter's own __init__ imports
`typing`, ~3 ms, for one Protocol, so its compiled module is loaded alone: `ts`).
Only plugins' extract() paths use this module (the indexer's workers, a search
revalidating an edited file), never `rq -q` on a hit.
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
    """Load tree-sitter now: an indexer that will parse does it while `git ls-files`
    runs instead of after."""
    ts()


def _load_extension(name: str, path: str) -> Any:
    """Load the compiled module at `path` as `name` (and keep it in sys.modules). By
    importlib.machinery alone: importlib.util (with contextlib) is ~1 ms more of the
    query that reindexes an edited file."""
    import importlib.machinery
    import sys

    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.machinery.ModuleSpec(name, loader, origin=path)
    mod = loader.create_module(spec)
    sys.modules[name] = mod
    try:
        loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


def _extension_file(package: str, stem: str) -> str | None:
    """The compiled module `stem` (a path under `package`'s directory, no suffix) as
    installed, found without importing the package; None when it is not there."""
    import importlib.machinery
    import os

    spec = importlib.machinery.PathFinder.find_spec(package)
    for base in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = f"{base}/{stem}{suffix}"
            if os.path.exists(path):
                return path
    return None


@cache
def ts() -> Any:
    """tree-sitter's compiled module (Language, Parser, Query, QueryCursor, Range, ...).

    Loaded from its file under its own name, `tree_sitter._binding`, without the
    package's __init__ (which imports `typing` for one Protocol: ~3 ms of the query
    that reindexes an edited file). A later `import tree_sitter` finds it loaded and
    re-exports the same classes; anything unexpected falls back to that import.
    """
    import sys

    loaded = sys.modules.get("tree_sitter._binding")
    if loaded is not None:
        return loaded
    path = _extension_file("tree_sitter", "_binding")
    if path is not None:
        try:
            return _load_extension("tree_sitter._binding", path)
        except (ImportError, OSError):
            pass
    import tree_sitter

    return tree_sitter


@cache
def language(name: str) -> Any:
    return ts().Language(_binding(name))


def _binding(name: str) -> object:
    """The grammar's language capsule, loaded straight from the pack's `bindings/`.

    Importing `tree_sitter_language_pack` itself costs ~11 ms more: its __init__
    imports three separately packaged grammars and importlib.resources (tempfile,
    shutil, …) whichever grammar is asked for — paid by a search revalidating one
    edited file. The binding module's init symbol is PyInit_<name>, so it loads
    under a private package name; anything unexpected falls back to the pack's API.
    """
    path = _extension_file("tree_sitter_language_pack", f"bindings/{name}")
    if path is not None:
        try:
            return _load_extension(f"_rq_grammars.{name}", path).language()
        except (ImportError, OSError, AttributeError):
            pass
    from tree_sitter_language_pack import get_binding

    return get_binding(name)  # type: ignore[arg-type]


@cache
def parser(name: str) -> Any:
    return ts().Parser(language(name))


@cache
def query(grammar: str, file: str) -> Any:
    """Compile `rq_engine/lang/queries/<file>` against `grammar` once per process."""
    return ts().Query(language(grammar), _query_text(file))


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
    Range = ts().Range

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
    return ts().Parser(language(name))
