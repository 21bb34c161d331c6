"""Rust plugin: mods, structs, enums, unions, traits, type aliases, fns, methods, consts,
macros, and a type's members: struct and union fields (`Runtime::handle`), enum variants
(`TryRecvError::Empty`, constants as C's enumerators and Java's enum constants are).

Imports nothing heavy at module level; tree_sitter loads inside extract().

Items inside item-position macro blocks (Tokio's `cfg_rt! { pub struct Runtime … }`) are
token trees to Tree-sitter, yet they are the real definitions: the token tree's text is
re-parsed as Rust and its items emitted at their absolute lines, with the parent the
macro sits in (recursively, MAX_MACRO_DEPTH deep). Tokio 1.24 has 436 such blocks
holding 16% of its bytes, which are therefore parsed twice (~15% of its extraction time).
"""

from __future__ import annotations

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _refs
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "rust",
    (".rs",),
    scope_separator="::",
    constructor_name=None,  # `X::new` is matched as a scoped query
    # a module's tests out of line (`#[cfg(test)] mod tests;` reads src/x/tests.rs);
    # `test.rs` is left out: rustc's is the #[test] macro, not a test
    test_suffixes=("_test.rs", "_tests.rs"),
    test_names=("tests.rs",),
)

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import Any

MAX_MACRO_DEPTH = 4

_KINDS: dict[str, Kind] = {
    "mod_item": Kind.MODULE,
    "struct_item": Kind.STRUCT,
    "enum_item": Kind.ENUM,
    "union_item": Kind.UNION,
    "trait_item": Kind.TRAIT,
    "type_item": Kind.TYPE,
    "function_item": Kind.FUNCTION,
    "function_signature_item": Kind.FUNCTION,
    "const_item": Kind.CONSTANT,
    "static_item": Kind.CONSTANT,
    "macro_definition": Kind.MACRO,
    "field_declaration": Kind.FIELD,
    "enum_variant": Kind.CONSTANT,
}
# container kinds on the scope stack
_MOD, _IMPL, _TRAIT_IMPL, _TRAIT, _FN = "mod", "impl", "trait_impl", "trait", "fn"
_TYPE = "type"  # a struct or union: its members are its fields
# an enum, by its visibility: its variants are as visible as the enum itself
_ENUM_SCOPES = {v: f"enum {v.value}" for v in Visibility}
_ENUM_VISIBILITY = {scope: v for v, scope in _ENUM_SCOPES.items()}
_CONTAINER = {
    "mod_item": _MOD,
    "trait_item": _TRAIT,
    "function_item": _FN,
    "struct_item": _TYPE,
    "union_item": _TYPE,
}


def _name(node: Any) -> str:
    s = bytes(node.text).decode("utf-8", "replace")
    return s[2:] if s.startswith("r#") else s


def _impl_type_name(t: Any) -> str:
    """`impl<T> Trait for a::X<T>` -> "X": the implementing type's base name."""
    for _ in range(8):
        tt = t.type
        nxt = None
        if tt == "generic_type" or tt == "reference_type" or tt == "pointer_type":
            nxt = t.child_by_field_name("type")
        elif tt == "scoped_type_identifier":
            nxt = t.child_by_field_name("name")
        elif tt == "dynamic_type" or tt == "abstract_type":
            nxt = t.child_by_field_name("trait")
        if nxt is None:
            break
        t = nxt
    return _name(t)


def _visibility(node: Any) -> Visibility:
    first = node.child(0)
    if first is not None and first.type == "visibility_modifier":
        return Visibility.PUBLIC if first.text == b"pub" else Visibility.PROTECTED
    return Visibility.PRIVATE


def _macro_visibility(node: Any) -> Visibility:
    """`#[macro_export] macro_rules!` is crate-public API; a bare macro_rules! is local."""
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item" and b"macro_export" in bytes(prev.text):
            return Visibility.PUBLIC
        prev = prev.prev_named_sibling
    return Visibility.PRIVATE


class _Extractor:
    __slots__ = ("out", "language")

    def __init__(self, language: str) -> None:
        self.out: list[Symbol] = []
        self.language = language

    def run(
        self,
        source: bytes,
        row_offset: int,
        base: tuple[str | None, str | None],
        depth: int,
    ) -> None:
        from rq_engine.lang.grammar import parse, query, ts

        QueryCursor = ts().QueryCursor

        tree = parse("rust", source)
        caps = QueryCursor(query("rust", "rust.scm")).captures(tree.root_node)
        nodes: list[tuple[int, int, Any]] = []
        for role, code in (("def", 0), ("scope", 1), ("macro", 2)):
            for n in caps.get(role, ()):
                nodes.append((n.start_byte, code, n))
        nodes.sort(key=_first)
        stack: list[tuple[int, str | None, str | None]] = [(len(source) + 1, *base)]
        out = self.out
        lang = self.language
        for start, code, node in nodes:
            while stack[-1][0] <= start:
                stack.pop()
            _, parent, ckind = stack[-1]
            if code == 1:  # impl block: a scope named after the implementing type
                t = node.child_by_field_name("type")
                if t is None:
                    continue
                tname = _impl_type_name(t)
                qual = f"{parent}::{tname}" if parent else tname
                trait = node.child_by_field_name("trait") is not None
                stack.append((node.end_byte, qual, _TRAIT_IMPL if trait else _IMPL))
                continue
            if code == 2:  # item-position macro: re-parse its token tree as items
                if depth < MAX_MACRO_DEPTH and node.end_byte - node.start_byte > 2:
                    inner = source[node.start_byte + 1 : node.end_byte - 1]
                    self.run(inner, row_offset + node.start_point[0], (parent, ckind), depth + 1)
                continue
            t = node.type
            name_node = node.child_by_field_name("name")
            if name_node is None:
                continue
            name = _name(name_node)
            kind = _KINDS[t]
            if kind is Kind.FUNCTION and ckind in (_IMPL, _TRAIT_IMPL, _TRAIT):
                kind = Kind.METHOD
                vis = Visibility.PUBLIC if ckind != _IMPL else _visibility(node)
            elif ckind == _TRAIT or ckind == _TRAIT_IMPL:
                vis = Visibility.PUBLIC
            elif kind is Kind.MACRO:
                vis = _macro_visibility(node)
            elif t == "enum_variant":
                vis = _ENUM_VISIBILITY.get(ckind or "", Visibility.PUBLIC)
            else:
                vis = _visibility(node)
            out.append(
                Symbol(
                    name,
                    kind,
                    row_offset + node.start_point[0] + 1,
                    row_offset + node.end_point[0] + 1,
                    parent,
                    vis,
                    lang,
                )
            )
            container = _CONTAINER.get(t)
            if t == "enum_item":
                container = _ENUM_SCOPES[vis]
            if container is not None:
                qual = f"{parent}::{name}" if parent else name
                stack.append((node.end_byte, qual, container))


def _first(item: tuple[int, int, Any]) -> tuple[int, int]:
    # impl scopes and items never share a start byte with each other; ties only
    # occur between distinct roles, where the scope must come first.
    return (item[0], item[1] != 1)


class RustPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.scoped(source)

    def extract(self, source: bytes) -> list[Symbol]:
        ex = _Extractor(self.name)
        try:
            ex.run(source, 0, (None, None), 0)
        except (ValueError, UnicodeError, RecursionError):
            pass  # return what parsed before the failure
        ex.out.sort(key=_line)
        return ex.out


def _line(s: Symbol) -> int:
    return s.line
