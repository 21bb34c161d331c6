"""What the TS/TSX/JS extractor (_tsjs) reads off a tree-sitter node: its text, the
line its definition starts on, a member's name, a dotted name, and which declaration
nodes are which kind. Pure functions of a node; no tree-sitter import.
"""

from __future__ import annotations

from rq_engine.core.model import Kind

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import Any


def node_text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def def_line(node: Any, name: Any) -> int:
    """1-based line of the definition keyword: skips decorators that the node may include."""
    row: int = node.start_point[0]
    if name is not None and name.start_point[0] != row:
        for child in node.children:
            if child.type not in ("decorator", "comment"):
                return int(child.start_point[0]) + 1
    return row + 1


def member_name(name: Any) -> str:
    t = name.type
    if t == "string":
        return node_text(name)[1:-1]
    return node_text(name)


def is_type_literal(node: Any) -> bool:
    """A type alias whose value is a type literal (`type P = { a: string }`)."""
    if node.type != "type_alias_declaration":
        return False
    value = node.child_by_field_name("value")
    return value is not None and value.type == "object_type"


DECL_KINDS: dict[str, Kind] = {
    "class_declaration": Kind.CLASS,
    "abstract_class_declaration": Kind.CLASS,
    "interface_declaration": Kind.INTERFACE,
    "type_alias_declaration": Kind.TYPE,
    "enum_declaration": Kind.ENUM,
}


def dotted(node: Any) -> str | None:
    """`a.b.c` for a member expression made of plain names only, else None (`this.x`, `f().y`)."""
    parts: list[str] = []
    while node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return None
        parts.append(node_text(prop))
        node = node.child_by_field_name("object")
        if node is None:
            return None
    if node.type != "identifier":
        return None
    parts.append(node_text(node))
    return ".".join(reversed(parts))
