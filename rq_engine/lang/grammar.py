"""Lazy Tree-sitter loading: parsers and compiled .scm queries, cached per process.

tree_sitter + the language pack cost ~50 ms to import, so this module is only
imported by plugins' extract() paths (the indexer's worker processes), never by
`rq -q` on a hit.
"""

from __future__ import annotations

from functools import cache
from typing import Any


def preload() -> None:
    """Import tree-sitter and the language pack now (~22 ms): an indexer that will
    parse does it while `git ls-files` runs instead of after."""
    import tree_sitter_language_pack  # noqa: F401


@cache
def language(name: str) -> Any:
    from tree_sitter_language_pack import get_language

    return get_language(name)  # type: ignore[arg-type]


@cache
def parser(name: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(name)  # type: ignore[arg-type]


@cache
def query(grammar: str, file: str) -> Any:
    """Compile `rq_engine/lang/queries/<file>` against `grammar` once per process."""
    from importlib import resources  # ~5 ms: only a worker compiling a query needs it

    from tree_sitter import Query

    text = resources.files("rq_engine.lang").joinpath("queries", file).read_text(encoding="utf-8")
    return Query(language(grammar), text)


def parse(grammar: str, source: bytes) -> Any:
    """Parse `source`; returns the tree (Tree-sitter recovers from syntax errors)."""
    return parser(grammar).parse(source)
