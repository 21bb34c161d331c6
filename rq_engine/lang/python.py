"""The Python language plugin: classes, functions, methods, constants and type aliases.

Imports tree-sitter only lazily (through _common/grammar), never at import time.

Rules (what a developer jumps to):
- `class` -> class; `def` in a class body -> method; any other `def` -> function
  (nested defs get the enclosing function as parent). Definitions under
  `if`/`try`/`with`/`for`/`match` at any level count like any other.
- Module- and class-level UPPER_CASE assignment targets (plain, chained,
  annotated) and `x: Final = ...` -> constant; `type X = ...` and
  `X: TypeAlias = ...` -> type; `f = lambda ...` -> function (method in a
  class). Assignments inside functions are locals: skipped.
- line is the `def`/`class` line (decorators excluded); end_line is the last
  statement of the body (a trailing comment inside the block is not).
- Visibility: a leading underscore (not a dunder) is private, anything else public.

Why a statement walk and not a query: Python definitions are statements, so
only blocks and compound statements need visiting (0.44 M of Django's 4.0 M
nodes). A compiled query must step through every expression node as well:
0.77 s of querying over Django against 0.32 s for this walk (parsing: 1.6 s).
"""

from __future__ import annotations

import re
from typing import ClassVar

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common, grammar
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

# Nodes whose children may be statements (ERROR: Tree-sitter's recovery wrapper).
_DESCEND = frozenset(
    {
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "except_group_clause",
        "finally_clause",
        "with_statement",
        "for_statement",
        "while_statement",
        "match_statement",
        "case_clause",
        "block",
        "decorated_definition",
        "expression_statement",
        "ERROR",
    }
)
_FINAL_OR_ALIAS = re.compile(rb"((typing|typing_extensions|t)\.)?(Final|TypeAlias)\b")
_MODULE, _CLASS, _FUNCTION = 0, 1, 2


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def visibility(name: str) -> Visibility:
    if name.startswith("_") and not _dunder(name):
        return Visibility.PRIVATE
    return Visibility.PUBLIC


class PythonPlugin(LanguagePlugin):
    name: ClassVar[str] = "python"
    extensions: ClassVar[tuple[str, ...]] = (".py", ".pyi")
    scope_separator: ClassVar[str] = "."
    constructor_name: ClassVar[str | None] = "__init__"

    def extract(self, source: bytes) -> list[Symbol]:
        tree = grammar.parse("python", source)
        # (start byte, name, kind, node, parent); sorted into source order at the end
        found: list[tuple[int, str, Kind, Node, str | None]] = []
        trailing: set[int] = set()  # end bytes of comments that close a block
        todo: list[tuple[Node, str | None, int]] = [(tree.root_node, None, _MODULE)]
        while todo:
            container, parent, scope = todo.pop()
            children = container.named_children
            if children and children[-1].type == "comment":
                trailing.add(children[-1].end_byte)
            for node in children:
                kind_name = node.type
                if kind_name == "function_definition" or kind_name == "class_definition":
                    name_node = node.child_by_field_name("name")
                    if name_node is None:
                        continue
                    name = _common.text(source, name_node)
                    if kind_name == "class_definition":
                        kind, inner = Kind.CLASS, _CLASS
                    else:
                        kind = Kind.METHOD if scope == _CLASS else Kind.FUNCTION
                        inner = _FUNCTION
                    found.append((node.start_byte, name, kind, node, parent))
                    # The def itself, not just its body: recovery can hang an
                    # ERROR holding more defs beside the body (cpython test_compile.py).
                    todo.append((node, f"{parent}.{name}" if parent else name, inner))
                elif kind_name in _DESCEND:
                    todo.append((node, parent, scope))
                elif scope == _FUNCTION:
                    continue  # assignments in a function are locals
                elif kind_name == "assignment":
                    _assignment(source, node, parent, scope, found)
                elif kind_name == "type_alias_statement":
                    left = node.child_by_field_name("left")
                    if left is not None:
                        name = _common.text(source, left).split("[", 1)[0].strip()
                        found.append((node.start_byte, name, Kind.TYPE, node, parent))
        found.sort(key=_start)
        out = []
        for _, name, kind, node, parent in found:
            end = node.end_byte
            if end in trailing and (kind is Kind.CLASS or node.type == "function_definition"):
                end_line = _end_line(node, trailing)
            else:
                end_line = _common.last_line(node)
            line = _common.first_line(node)
            out.append(Symbol(name, kind, line, end_line, parent, visibility(name), "python"))
        return out


def _assignment(
    source: bytes,
    node: Node,
    parent: str | None,
    scope: int,
    found: list[tuple[int, str, Kind, Node, str | None]],
) -> None:
    """A module- or class-level assignment (and the chain `A = B = 1` it heads)."""
    while node is not None and node.type == "assignment":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is not None and left.type == "identifier":
            name = _common.text(source, left)
            ann = node.child_by_field_name("type")
            kind: Kind | None = None
            if right is not None and right.type == "lambda":
                kind = Kind.METHOD if scope == _CLASS else Kind.FUNCTION
            elif ann is not None and (
                m := _FINAL_OR_ALIAS.match(source, ann.start_byte, ann.end_byte)
            ):
                kind = Kind.TYPE if m.group(3) == b"TypeAlias" else Kind.CONSTANT
            elif name.isupper() and not _dunder(name):
                kind = Kind.CONSTANT
            if kind is not None:
                found.append((node.start_byte, name, kind, node, parent))
        node = right


def _start(item: tuple[int, str, Kind, Node, str | None]) -> int:
    return item[0]


def _end_line(node: Node, trailing: set[int]) -> int:
    """Last line of `node` not counting comments that close its block(s).

    Tree-sitter puts a comment written after a body's last statement inside the
    block, and every enclosing block ends there too: descend through the last
    named children until a node that does not end in such a comment.
    """
    while node.end_byte in trailing:
        last = node.named_child(node.named_child_count - 1)
        while last is not None and last.type == "comment":
            last = last.prev_named_sibling
        if last is None:
            return _common.first_line(node)
        node = last
    return _common.last_line(node)
