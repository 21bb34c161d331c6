"""The PHP language plugin: namespaces, classes, interfaces, traits, enums, functions, methods,
constants, properties.

Imports tree-sitter only lazily (through grammar), never at import time.

Rules (what a developer jumps to):
- `class` -> class, `interface` -> interface, `trait` -> trait, `enum` -> enum,
  `function` -> function, a function in a class-like body -> method; class
  constants (`const A = 1, B = 2`, one per name) and enum cases -> constant;
  file-level `const X = 1` and `define('X', …)` -> constant; properties
  (`protected $fillable = [...], $b;`, one per name, without the `$`) and
  constructor-promoted parameters (`__construct(private Foo $foo)`) -> field.
- Namespaces (`namespace App\\Http;` up to the next one, or `namespace X { … }`)
  are the parent of what they hold: the parent chain is PHP's own, joined by
  `\\` (`App\\Http\\Kernel` for Kernel's methods), so the scope separator is `\\`
  and registry.qualify shows members after `::` (`App\\Http\\Kernel::handle`).
  A query `App\\Http\\Kernel` is the scope chain App, Http and the leaf Kernel
  (core/query.py), `Kernel::handle` the scope Kernel. PHP classes do not nest,
  so a member's parent is always namespace + class.
- The namespace declaration itself -> module (`Http`, parent `App`).
- Definitions under file-level `if`/`else` blocks count (Laravel's helpers are
  `if (! function_exists('x')) { function x() … }`); nothing inside function or
  method bodies does (closures, anonymous classes, conditionally declared
  nested functions): they are not walked.
- line: the first token after attributes (`#[Pure]`); doc comments are not
  part of a declaration.
- Visibility: `public`/`protected`/`private` as written; none -> public (PHP's
  default). Classes, functions and namespaces are public.
"""

from __future__ import annotations

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import ACCESS_WORDS, Kind, Symbol, Visibility
from rq_engine.lang import _bodies, _common, _refs, grammar
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "php",
    (".php",),
    scope_separator="\\",  # a parent chain: `Illuminate\Support\Collection`
    member_separator="::",  # members follow `::`: `App\Http\Kernel::handle`
    member_kinds=("method", "constant", "field"),
    constructor_name="__construct",
    test_class_suffixes=("Test.php", "Tests.php"),  # PHPUnit's `FooTest.php`
)

_TYPES = {
    "class_declaration": Kind.CLASS,
    "interface_declaration": Kind.INTERFACE,
    "trait_declaration": Kind.TRAIT,
    "enum_declaration": Kind.ENUM,
}
# file-level statements whose blocks may hold definitions (ERROR: Tree-sitter's recovery)
_DESCEND = frozenset(
    (
        "compound_statement",
        "if_statement",
        "else_clause",
        "else_if_clause",
        "colon_block",
        "declare_statement",
        "try_statement",
        "catch_clause",
        "finally_clause",
        "ERROR",
    )
)
_NOT_A_LINE = frozenset(("attribute_list", "comment"))


class PhpPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.php(source)

    def extract(self, source: bytes) -> list[Symbol]:
        # never reads a body: parsed without the ones the layout delimits (_bodies.py)
        root = grammar.parse_outside("php", source, _bodies.php(source)).root_node
        found: list[tuple[int, Symbol]] = []  # (start byte, symbol): sorted at the end
        # (file-level container, namespace in force at its start)
        todo: list[tuple[Node, str | None]] = [(root, None)]
        while todo:
            container, namespace = todo.pop()
            for node in container.named_children:
                t = node.type
                kind = _TYPES.get(t)
                if kind is not None:
                    name_node = node.child_by_field_name("name")
                    if name_node is None:
                        continue
                    name = _common.text(source, name_node)
                    found.append((node.start_byte, _symbol(node, name, kind, namespace)))
                    body = node.child_by_field_name("body")
                    if body is not None:
                        qualified = f"{namespace}\\{name}" if namespace else name
                        _members(source, body, qualified, found)
                elif t == "function_definition":
                    name_node = node.child_by_field_name("name")
                    if name_node is not None:
                        name = _common.text(source, name_node)
                        symbol = _symbol(node, name, Kind.FUNCTION, namespace)
                        found.append((node.start_byte, symbol))
                elif t == "namespace_definition":
                    name_node = node.child_by_field_name("name")
                    body = node.child_by_field_name("body")
                    full = "".join(_common.text(source, name_node).split()) if name_node else ""
                    full = full.strip("\\")
                    if full:
                        outer, _, leaf = full.rpartition("\\")
                        module = _symbol(node, leaf, Kind.MODULE, outer or None)
                        found.append((node.start_byte, module))
                    if body is not None:
                        todo.append((body, full or None))
                    else:
                        namespace = full or None  # `namespace X;` holds what follows
                elif t == "const_declaration":
                    _constants(source, node, namespace, found)
                elif t == "expression_statement":
                    _define(source, node, found)
                elif t in _DESCEND:
                    todo.append((node, namespace))
        found.sort(key=_first)
        return [s for _, s in found]


def _first(item: tuple[int, Symbol]) -> int:
    return item[0]


def _members(source: bytes, body: Node, parent: str, found: list[tuple[int, Symbol]]) -> None:
    """A class-like body: methods, constants, properties and enum cases (no nesting in PHP)."""
    todo = [body]  # the body, and ERROR nodes inside it (Tree-sitter's recovery)
    while todo:
        for node in todo.pop().named_children:
            t = node.type
            if t == "method_declaration":
                name_node = node.child_by_field_name("name")
                if name_node is not None:
                    name = _common.text(source, name_node)
                    found.append((node.start_byte, _symbol(node, name, Kind.METHOD, parent)))
                    if name.lower() == "__construct":
                        _promoted(source, node, parent, found)
            elif t == "const_declaration":
                _constants(source, node, parent, found)
            elif t == "property_declaration":
                _properties(source, node, parent, found)
            elif t == "enum_case":
                name_node = node.child_by_field_name("name")
                if name_node is not None:
                    name = _common.text(source, name_node)
                    found.append((node.start_byte, _symbol(node, name, Kind.CONSTANT, parent)))
            elif t == "ERROR":
                todo.append(node)


def _constants(
    source: bytes, node: Node, parent: str | None, found: list[tuple[int, Symbol]]
) -> None:
    """`[visibility] const A = 1, B = 2;`: one constant per element, the statement's lines."""
    line, end, vis = _line(node), _common.last_line(node), _visibility(node)
    for element in node.named_children:
        if element.type != "const_element":
            continue
        for c in element.named_children:
            if c.type == "name":
                name = _common.text(source, c)
                found.append(
                    (element.start_byte, Symbol(name, Kind.CONSTANT, line, end, parent, vis, "php"))
                )
                break


def _properties(source: bytes, node: Node, parent: str, found: list[tuple[int, Symbol]]) -> None:
    """`protected $fillable = [...], $b;`: one field per property, named without its
    `$` (`Model::fillable`), the statement's lines and visibility."""
    line, end, vis = _line(node), _common.last_line(node), _visibility(node)
    for element in node.named_children:
        if element.type != "property_element":
            continue
        var = element.named_child(0)
        name_node = var.named_child(0) if var is not None and var.type == "variable_name" else None
        if name_node is not None and name_node.type == "name":
            name = _common.text(source, name_node)
            found.append(
                (element.start_byte, Symbol(name, Kind.FIELD, line, end, parent, vis, "php"))
            )


def _promoted(source: bytes, ctor: Node, parent: str, found: list[tuple[int, Symbol]]) -> None:
    """`__construct(private Foo $foo)`: a promoted parameter is a property of the class
    (PHP 8), named without its `$`, its visibility as written."""
    params = ctor.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if p.type != "property_promotion_parameter":
            continue
        var = p.child_by_field_name("name")
        if var is not None and var.type == "by_ref":  # `private array &$x`
            var = var.named_child(0)
        name_node = var.named_child(0) if var is not None and var.type == "variable_name" else None
        if name_node is not None and name_node.type == "name":
            name = _common.text(source, name_node)
            found.append((p.start_byte, _symbol(p, name, Kind.FIELD, parent)))


def _define(source: bytes, node: Node, found: list[tuple[int, Symbol]]) -> None:
    """File-level `define('NAME', …)`: a global constant whatever the namespace."""
    call = node.named_child(0)
    if call is None or call.type != "function_call_expression":
        return
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or _common.text(source, fn).lower() != "define":
        return
    first = args.named_child(0)
    string = first.named_child(0) if first is not None else None
    if string is None or string.type not in ("string", "encapsed_string"):
        return
    if string.named_child_count != 1 or string.named_child(0).type != "string_content":
        return  # interpolated or empty: no literal name
    name = _common.text(source, string.named_child(0))
    found.append((node.start_byte, _symbol(node, name, Kind.CONSTANT, None)))


def _visibility(node: Node) -> Visibility:
    for c in node.named_children:
        if c.type == "visibility_modifier":
            word = c.text.split(b"(", 1)[0].decode("ascii", "replace").strip().lower()
            return ACCESS_WORDS.get(word, Visibility.PUBLIC)
    return Visibility.PUBLIC


def _line(node: Node) -> int:
    """1-based line of the first token that is not an attribute or a comment."""
    for c in node.children:
        if c.type not in _NOT_A_LINE:
            return int(c.start_point[0]) + 1
    return _common.first_line(node)


def _symbol(node: Node, name: str, kind: Kind, parent: str | None) -> Symbol:
    vis = _visibility(node)
    return Symbol(name, kind, _line(node), _common.last_line(node), parent, vis, "php")
