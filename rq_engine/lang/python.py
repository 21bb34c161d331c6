"""The Python language plugin: classes, functions, methods, constants and type aliases.

Imports tree-sitter only lazily (through _common/grammar), never at import time.

Rules (what a developer jumps to):
- `class` -> class; `def` in a class body -> method; any other `def` -> function
  (nested defs get the enclosing function as parent). Definitions under
  `if`/`try`/`with` at module or class level count like any other.
- Module- and class-level UPPER_CASE assignment targets (plain, chained,
  annotated) and `x: Final = ...` -> constant; `type X = ...` and
  `X: TypeAlias = ...` -> type. Assignments inside functions are locals: skipped.
- line is the `def`/`class` line (decorators excluded); end_line is the last
  statement of the body (a trailing comment inside the block is not).
- `f = lambda ...` at module/class level -> function/method (in a function: a local).
- Visibility: a leading underscore (not a dunder) is private, anything else public.
"""

from __future__ import annotations

from typing import ClassVar

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

# "lambda" before the assignment tags: for the same node, in_order keeps this order
# and the first tag to claim an assignment wins (`F = lambda: 0` is a function).
_TAGS = ("class", "function", "lambda", "constant", "annotated", "alias")


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
        caps, source = _common.captures("python", "python.scm", source)
        trailing = {n.end_byte for n in caps.get("trailing_comment", ())}
        out: list[Symbol] = []
        # enclosing definitions: (end_byte, qualified name, is_class)
        stack: list[tuple[int, str, bool]] = []
        seen_assignments: set[int] = set()
        for start, _neg_end, tag, node in _common.in_order(caps, _TAGS):
            while stack and stack[-1][0] <= start:
                stack.pop()
            top = stack[-1] if stack else None
            parent = top[1] if top else None
            if tag == "class" or tag == "function":
                name_node = node.child_by_field_name("name")
                if name_node is None:
                    continue
                name = _common.text(source, name_node)
                if tag == "class":
                    kind = Kind.CLASS
                else:
                    kind = Kind.METHOD if top is not None and top[2] else Kind.FUNCTION
                end = node.end_byte
                end_line = _end_line(node, trailing) if end in trailing else _common.last_line(node)
                out.append(
                    Symbol(
                        name,
                        kind,
                        _common.first_line(node),
                        end_line,
                        parent,
                        visibility(name),
                        "python",
                    )
                )
                stack.append((end, f"{parent}.{name}" if parent else name, tag == "class"))
                continue
            # Assignments and aliases: only at module or class level.
            if top is not None and not top[2]:
                continue
            if tag == "alias" or tag == "lambda":
                left = node.child_by_field_name("left")
                if left is None:
                    continue
                name = _common.text(source, left)
                if tag == "alias":
                    name = name.split("[", 1)[0].strip()  # `type Pair[T] = ...` -> Pair
                    kind = Kind.TYPE
                else:
                    kind = Kind.METHOD if top is not None else Kind.FUNCTION
                    seen_assignments.add(start)
            else:
                if start in seen_assignments:
                    continue  # an UPPER `X: Final = 1` matches both assignment patterns
                seen_assignments.add(start)
                left = node.child_by_field_name("left")
                if left is None:
                    continue
                name = _common.text(source, left)
                ann = node.child_by_field_name("type")
                if ann is not None and b"TypeAlias" in source[ann.start_byte : ann.end_byte]:
                    kind = Kind.TYPE
                elif tag == "annotated" or (name.isupper() and not _dunder(name)):
                    kind = Kind.CONSTANT  # (the C-side regex lets non-ASCII lowercase through)
                else:
                    continue
            out.append(
                Symbol(
                    name,
                    kind,
                    _common.first_line(node),
                    _common.last_line(node),
                    parent,
                    visibility(name),
                    "python",
                )
            )
        return out


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
