"""The Java language plugin: packages, types, methods, constructors, constants, fields.

Imports tree-sitter only lazily (through grammar), never at import time.

Rules (what a developer jumps to):
- `class` -> class, `record` -> class, `interface` and `@interface` (annotation
  type) -> interface, `enum` -> enum; nested types take the enclosing type as
  parent. Top-level types take the file's package as parent (`java.util`), so
  `java.util.HashMap` and `util.HashMap` reach HashMap; a member's parent is its
  type's whole chain (`java.util.Map.Entry`).
- The package itself -> module (`concurrent`, parent `java.util`), emitted
  only by a file that declares no type: a package's `package-info.java`, where
  its documentation lives. Every other file would repeat it (a JDK package is
  declared by ~20 files: a query for `concurrent` would list 300 copies).
- Methods, annotation elements -> method; constructors (compact ones too) ->
  method named after the class (the constructor name is the class's own:
  `StringJoiner.new`, `StringJoiner::new` and `StringJoiner.StringJoiner` reach it).
- `static final` fields, interface and annotation fields (implicitly static
  final) and enum constants -> constant, one per declarator; every other field
  -> field (`HashMap.table`), and so is each record component (`Point.x`: the
  accessor it implies is public, so the component is too). Initializer blocks
  and everything inside method, constructor and initializer bodies (local and
  anonymous classes, lambdas, local variables) are not walked: ctags does not
  list them either, and skipping them keeps extraction to the declarations.
- line: the first modifier or keyword after annotations (an `@Override` line
  above a method is not its line); javadoc is never part of a declaration.
- Visibility: `public`/`protected`/`private` as written. Package-private (no
  modifier) -> private, as Go's unexported names: visible to the package only,
  not API. Members of interfaces and annotation types are implicitly public
  (unless written `private`), enum constants are public.
"""

from __future__ import annotations

from rq_engine.core.langspec import CLASS_NAME, LanguageSpec
from rq_engine.core.model import ACCESS_WORDS, Kind, Symbol, Visibility
from rq_engine.lang import _bodies, _common, _refs, grammar
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "java",
    (".java",),
    constructor_name=CLASS_NAME,
    test_class_suffixes=("Test.java", "Tests.java"),  # JUnit's `MapTest.java`
)

_TYPES = {
    "class_declaration": Kind.CLASS,
    "record_declaration": Kind.CLASS,
    "interface_declaration": Kind.INTERFACE,
    "annotation_type_declaration": Kind.INTERFACE,
    "enum_declaration": Kind.ENUM,
}
# bodies whose members default to public (and whose fields are constants)
_IMPLICIT_PUBLIC = frozenset(("interface_declaration", "annotation_type_declaration"))
_METHODS = frozenset(
    (
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "annotation_type_element_declaration",
    )
)
_FIELDS = frozenset(("field_declaration", "constant_declaration"))
_ANNOTATIONS = frozenset(("annotation", "marker_annotation", "line_comment", "block_comment"))


class JavaPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.java(source)

    def extract(self, source: bytes) -> list[Symbol]:
        # never reads a body: parsed without the ones the layout delimits (_bodies.py)
        root = grammar.parse_outside("java", source, _bodies.java(source)).root_node
        found: list[tuple[int, Symbol]] = []  # (start byte, symbol): sorted at the end
        package: str | None = None
        package_node: Node | None = None
        types = 0
        # (container, parent, implicitly public): the program, type bodies, ERROR nodes.
        # The package is declared first, so it is known before any type is met.
        todo: list[tuple[Node, str | None, bool]] = [(root, None, False)]
        while todo:
            container, parent, implicit = todo.pop()
            for node in container.named_children:
                t = node.type
                kind = _TYPES.get(t)
                if kind is not None:
                    name_node = node.child_by_field_name("name")
                    if name_node is None:
                        continue
                    types += 1
                    name = _common.text(source, name_node)
                    owner = parent if parent is not None else package
                    found.append((node.start_byte, _symbol(node, name, kind, owner, implicit)))
                    qualified = f"{owner}.{name}" if owner else name
                    if t == "record_declaration":
                        _components(source, node, qualified, found)
                    body = node.child_by_field_name("body")
                    if body is not None:
                        todo.append((body, qualified, t in _IMPLICIT_PUBLIC))
                elif parent is None:
                    if t == "package_declaration" and package is None:
                        package_node = node
                        package = _package_name(source, node)
                    elif t == "ERROR":
                        todo.append((node, parent, implicit))
                elif t in _METHODS:
                    name_node = node.child_by_field_name("name")
                    if name_node is not None:
                        name = _common.text(source, name_node)
                        symbol = _symbol(node, name, Kind.METHOD, parent, implicit)
                        found.append((node.start_byte, symbol))
                elif t in _FIELDS:
                    const = implicit or _static_final(node)
                    field_kind = Kind.CONSTANT if const else Kind.FIELD
                    (line, vis), end = _head(node, implicit), _common.last_line(node)
                    for decl in node.children_by_field_name("declarator"):
                        name_node = decl.child_by_field_name("name")
                        if name_node is not None:
                            name = _common.text(source, name_node)
                            symbol = Symbol(name, field_kind, line, end, parent, vis, "java")
                            found.append((decl.start_byte, symbol))
                elif t == "enum_constant":
                    name_node = node.child_by_field_name("name")
                    if name_node is not None:
                        name = _common.text(source, name_node)
                        symbol = _symbol(node, name, Kind.CONSTANT, parent, True)
                        found.append((node.start_byte, symbol))
                elif t == "enum_body_declarations" or t == "ERROR":
                    todo.append((node, parent, implicit))
        if package and package_node is not None and not types:
            outer, _, leaf = package.rpartition(".")
            module = _symbol(package_node, leaf, Kind.MODULE, outer or None, True)
            found.append((package_node.start_byte, module))
        found.sort(key=_first)
        return [s for _, s in found]


def _first(item: tuple[int, Symbol]) -> int:
    return item[0]


def _components(source: bytes, record: Node, parent: str, found: list[tuple[int, Symbol]]) -> None:
    """`record Point(int x, int y)`: each component is a field, public as the accessor
    `x()` it implies (the component is where `Point.x` and `Point.x()` are declared)."""
    params = record.child_by_field_name("parameters")
    if params is None:
        return
    for p in params.named_children:
        if p.type != "formal_parameter":
            continue
        name_node = p.child_by_field_name("name")
        if name_node is not None:
            name = _common.text(source, name_node)
            line = int(p.start_point[0]) + 1
            symbol = Symbol(name, Kind.FIELD, line, line, parent, Visibility.PUBLIC, "java")
            found.append((p.start_byte, symbol))


def _package_name(source: bytes, node: Node) -> str | None:
    """`package java.util;` -> `java.util` (annotations and stray spaces left out)."""
    for c in node.named_children:
        if c.type == "scoped_identifier" or c.type == "identifier":
            return "".join(_common.text(source, c).split()) or None
    return None


def _static_final(node: Node) -> bool:
    modifiers = _modifiers(node)
    if modifiers is None:
        return False
    words = {c.type for c in modifiers.children}
    return "static" in words and "final" in words


def _modifiers(node: Node) -> Node | None:
    first = node.named_child(0)
    return first if first is not None and first.type == "modifiers" else None


def _head(node: Node, implicit: bool) -> tuple[int, Visibility]:
    """(line, visibility) from one look at the declaration's modifiers.

    The line is the first token's that is not an annotation or a comment (an
    `@Override` line above a method is not its line); the visibility the access
    keyword's, else public where members are implicitly so, else private.
    """
    vis = Visibility.PUBLIC if implicit else Visibility.PRIVATE
    line = 0
    for c in node.children:
        t = c.type
        if t == "modifiers":
            for m in c.children:
                t = m.type
                if not line and t not in _ANNOTATIONS:
                    line = int(m.start_point[0]) + 1
                access = ACCESS_WORDS.get(t)
                if access is not None:
                    return line, access
        elif t not in _ANNOTATIONS:
            return line or int(c.start_point[0]) + 1, vis
    return line or _common.first_line(node), vis


def _symbol(node: Node, name: str, kind: Kind, parent: str | None, implicit: bool) -> Symbol:
    line, vis = _head(node, implicit)
    return Symbol(name, kind, line, _common.last_line(node), parent, vis, "java")
