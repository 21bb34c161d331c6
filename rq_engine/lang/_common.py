"""Tree-walking helpers shared by the Python, Ruby and Go plugins. Knows no language.

Imports tree-sitter only through rq_engine.lang.grammar, lazily (this module is
imported by plugin modules, which the registry imports on first extract()).

Ruby's strategy: run ONE compiled query over the tree (the C side walks every
node), then do Python work only on the captured nodes, in source order, against
a stack of enclosing scopes built from byte ranges (`in_order`). Go's query is
rooted at source_file and needs no stack. Python walks statements instead (see
python.py: its definitions are statements, so a query's full walk is the waste).
"""

from __future__ import annotations

import codecs

from rq_engine.lang import grammar

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import Any

    Node = Any  # tree_sitter.Node; kept untyped so mypy need not see tree-sitter's stubs
else:
    Node = object  # (annotations only: plugins import the name)


def captures(
    grammar_name: str, query_file: str, source: bytes
) -> tuple[dict[str, list[Node]], bytes]:
    """Parse `source` and run the plugin's query: capture name -> nodes in source order.

    Returns the source the nodes index into. Text predicates (`#match?`,
    `#any-of?`) decode captured text as UTF-8 and raise on invalid bytes; such a
    file (rare: ~0 in Django) is re-read with each bad byte as `?`, which keeps
    every offset and line where it was.
    """
    QueryCursor = grammar.ts().QueryCursor

    query = grammar.query(grammar_name, query_file)
    tree = grammar.parse(grammar_name, source)
    try:
        result: dict[str, list[Node]] = QueryCursor(query).captures(tree.root_node)
    except (SystemError, UnicodeDecodeError):
        source = source.decode("utf-8", errors="rq-same-length").encode("utf-8")
        tree = grammar.parse(grammar_name, source)
        result = QueryCursor(query).captures(tree.root_node)
    return result, source


def _same_length(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    return "?" * (exc.end - exc.start), exc.end


codecs.register_error("rq-same-length", _same_length)


def in_order(
    caps: dict[str, list[Node]], tags: tuple[str, ...]
) -> list[tuple[int, int, str, Node]]:
    """The nodes captured under `tags`, merged into one list sorted by position.

    Sorted by start byte, then the WIDER node first (so an enclosing scope is
    pushed before anything starting at the same byte).
    """
    items: list[tuple[int, int, str, Node]] = []
    for tag in tags:
        for node in caps.get(tag, ()):
            items.append((node.start_byte, -node.end_byte, tag, node))
    items.sort(key=_position)
    return items


def _position(item: tuple[int, int, str, Node]) -> tuple[int, int]:
    return item[0], item[1]


def text(source: bytes, node: Node) -> str:
    """A node's source text (names are UTF-8; bad bytes become U+FFFD, never an error)."""
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def first_line(node: Node) -> int:
    """1-based line where the node starts."""
    return int(node.start_point[0]) + 1


def last_line(node: Node) -> int:
    """1-based inclusive last line of the node.

    A node that ends at column 0 ends with a newline: its last line is the one before.
    """
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return int(row)
    return int(row) + 1
