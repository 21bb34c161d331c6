"""The shared TypeScript / TSX / JavaScript extractor: one compiled query, one pass over its captures.

Imported only by the typescript and javascript plugins (whose extract() runs in indexer
workers); it imports tree_sitter lazily through rq_engine.lang.grammar, never at import time.

Why this shape: per-node Python is the cost that matters (a 10k-line Effect module has
~150k nodes, ~1.5k definitions). The .scm query selects definition nodes C-side, so
Python touches only those, in source order, keeping a stack of enclosing containers
(end byte, qualified name, kind) to give each symbol its lexical `parent`.
"""

from __future__ import annotations

import re

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang._tsnodes import (
    DECL_KINDS,
    def_line,
    dotted,
    is_type_literal,
    member_name,
    node_text,
)

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import Any

_CLASS = "class"
_INTERFACE = "interface"
_MODULE = "module"
_AMBIENT = "ambient"  # `declare namespace` / `declare module "x"`: members are implicitly exported
_FUNCTION = "function"

_PRIVATE_RE = re.compile(rb"\b(private|protected)\b")
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_CLASS_VALUES = frozenset({"class"})
_SIGNATURES = frozenset({"function_signature", "method_signature", "abstract_method_signature"})
_NAME_TYPES = frozenset(
    {"identifier", "type_identifier", "property_identifier", "private_property_identifier"}
)


class _Extractor:
    """One file's extraction; state lives here so extract() stays a straight loop."""

    __slots__ = ("source", "language", "out", "stack", "exported", "esm", "last_sig")

    def __init__(self, source: bytes, language: str) -> None:
        self.source = source
        self.language = language
        self.out: list[Symbol] = []
        # (end_byte, qualified name, container kind)
        self.stack: list[tuple[int, str, str]] = []
        self.exported: set[bytes] = set()
        self.esm = False
        self.last_sig = -1  # index in out of the last emitted overload signature

    # -- visibility ---------------------------------------------------------------
    def _top_visibility(self, decl: Any, name: str, container: str | None) -> Visibility:
        """Top-level / namespace member: exported -> public, else private (ESM) or unknown."""
        p = decl.parent
        if p is not None and p.type in ("lexical_declaration", "variable_declaration"):
            p = p.parent
        if p is not None and p.type == "ambient_declaration":
            p = p.parent
        if p is not None and p.type == "export_statement":
            return Visibility.PUBLIC
        if container is None:
            if name.encode() in self.exported:
                return Visibility.PUBLIC
            return Visibility.PRIVATE if self.esm else Visibility.UNKNOWN
        return Visibility.PRIVATE

    def _member_visibility(self, node: Any, name: Any) -> Visibility:
        if name.type == "private_property_identifier":
            return Visibility.PRIVATE
        m = _PRIVATE_RE.search(self.source, node.start_byte, name.start_byte)
        if m is not None and node.children[0].type == "decorator":
            # the words may be a decorator's (`@Inject('private') public a`): read after them
            after = max(c.end_byte for c in node.children if c.type == "decorator")
            m = _PRIVATE_RE.search(self.source, after, name.start_byte)
        if m is None:
            return Visibility.PUBLIC
        return Visibility.PRIVATE if m.group(1) == b"private" else Visibility.PROTECTED

    # -- emission -----------------------------------------------------------------
    def emit(
        self,
        node: Any,
        name_node: Any,
        name: str,
        kind: Kind,
        parent: str | None,
        vis: Visibility,
        signature: bool = False,
        line: int | None = None,
    ) -> None:
        end = int(node.end_point[0]) + 1
        out = self.out
        if self.last_sig >= 0 and self.last_sig == len(out) - 1:
            prev = out[-1]
            if prev.name == name and prev.parent == parent and prev.kind is kind:
                # Overloads: the signatures and the implementation are one definition,
                # anchored at the first signature and spanning to the implementation's end.
                out[-1] = Symbol(
                    prev.name,
                    kind,
                    prev.line,
                    end,
                    parent,
                    prev.visibility,
                    self.language,
                )
                if not signature:
                    self.last_sig = -1
                return
        if line is None:
            line = def_line(node, name_node)
        out.append(Symbol(name, kind, line, end, parent, vis, self.language))
        self.last_sig = len(out) - 1 if signature else -1

    def push(self, node: Any, parent: str | None, name: str, ckind: str) -> None:
        self.stack.append((node.end_byte, f"{parent}.{name}" if parent else name, ckind))

    # -- the pass -----------------------------------------------------------------
    def run(self, captures: dict[str, list[Any]]) -> list[Symbol]:
        self.esm = bool(captures.get("esm"))
        self.exported = {bytes(n.text) for n in captures.get("exported", ())}
        nodes = [(n.start_byte, 0, n) for n in captures.get("def", ())]
        nodes.extend((n.start_byte, 1, n) for n in captures.get("member", ()))
        # (after a @def of the same node, which the loop keeps: a function-valued field)
        nodes.extend((n.start_byte, 2, n) for n in captures.get("field", ()))
        nodes.extend((n.start_byte, 3, n) for n in captures.get("property", ()))
        nodes.sort(key=_first)
        stack = self.stack
        prev_id = -1
        for start, code, node in nodes:
            nid = node.id
            if nid == prev_id:
                continue  # matched by a module-level and an any-depth pattern
            prev_id = nid
            while stack and stack[-1][0] <= start:
                stack.pop()
            parent, ckind = (stack[-1][1], stack[-1][2]) if stack else (None, None)
            if code == 1:
                self.object_member(node, parent, ckind)
            elif code == 2:
                self.field(node, parent, ckind)
            elif code == 3:
                self.parameter_property(node, parent)
            else:
                self.visit(node, parent, ckind)
        return self.out

    def field(self, node: Any, parent: str | None, ckind: str | None) -> None:
        """A class or interface property that holds no function: a field."""
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name_node is None:
            return
        if ckind == _INTERFACE:
            vis = Visibility.PUBLIC
        else:
            vis = self._member_visibility(node, name_node)
        self.emit(node, name_node, member_name(name_node), Kind.FIELD, parent, vis)

    def parameter_property(self, node: Any, parent: str | None) -> None:
        """`constructor(private readonly http: HttpClient)`: a field of the class (the
        parent of the constructor, which is the innermost definition here)."""
        name_node = node.child_by_field_name("pattern")
        if name_node is None or name_node.type != "identifier":
            return  # a destructured parameter declares no property
        if parent is None or not parent.endswith(".constructor"):
            return  # (a modifier on another method's parameter: not TypeScript)
        vis = self._member_visibility(node, name_node)
        owner = parent[: -len(".constructor")]
        self.emit(node, name_node, node_text(name_node), Kind.FIELD, owner, vis)

    def visit(self, node: Any, parent: str | None, ckind: str | None) -> None:
        t = node.type
        if t == "variable_declarator":
            self.declarator(node, parent, ckind)
            return
        if t == "assignment_expression":
            self.assignment(node, parent)
            return
        if t == "public_field_definition" or t == "field_definition" or t == "property_signature":
            name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
            if name_node is None:
                return
            name = member_name(name_node)
            vis = (
                Visibility.PUBLIC
                if ckind == _INTERFACE
                else self._member_visibility(node, name_node)
            )
            self.emit(node, name_node, name, Kind.METHOD, parent, vis)
            self.push(node, parent, name, _FUNCTION)
            return
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        if t in ("method_definition", "method_signature", "abstract_method_signature"):
            name = member_name(name_node)
            vis = (
                Visibility.PUBLIC
                if ckind == _INTERFACE
                else self._member_visibility(node, name_node)
            )
            self.emit(node, name_node, name, Kind.METHOD, parent, vis, t in _SIGNATURES)
            if t == "method_definition":
                self.push(node, parent, name, _FUNCTION)
            return
        if t in ("internal_module", "module"):
            self.namespace(node, name_node, parent, ckind)
            return
        name = node_text(name_node)
        if t in ("function_declaration", "generator_function_declaration", "function_signature"):
            if self.too_deep():
                return
            vis = self._vis(node, name, parent, ckind)
            self.emit(node, name_node, name, Kind.FUNCTION, parent, vis, t in _SIGNATURES)
            if t != "function_signature":
                self.push(node, parent, name, _FUNCTION)
            return
        kind = DECL_KINDS.get(t)
        if kind is None:
            return
        self.emit(node, name_node, name, kind, parent, self._vis(node, name, parent, ckind))
        if kind is Kind.CLASS:
            self.push(node, parent, name, _CLASS)
        elif kind is Kind.INTERFACE or is_type_literal(node):
            # a type literal's members are an interface's (`type Options = { … }`)
            self.push(node, parent, name, _INTERFACE)

    def too_deep(self) -> bool:
        """A named function inside a function inside a function: not a jump target.

        A developer jumps to top-level functions and to one level of nesting (a
        helper inside a function or method, an IIFE's functions, which sit at the
        top since an anonymous function is no container); helpers of helpers are
        implementation detail, as locals are."""
        depth = 0
        for entry in self.stack:
            if entry[2] == _FUNCTION:
                depth += 1
                if depth >= 2:
                    return True
        return False

    def _vis(self, node: Any, name: str, parent: str | None, ckind: str | None) -> Visibility:
        if ckind == _AMBIENT:
            return Visibility.PUBLIC
        if ckind is None or ckind == _MODULE:
            return self._top_visibility(node, name, ckind)
        return Visibility.PRIVATE  # local to a function (or class static block)

    def namespace(self, node: Any, name_node: Any, parent: str | None, ckind: str | None) -> None:
        if name_node.type == "string":
            full = node_text(name_node)[1:-1]
            parts = [full]
        else:
            full = node_text(name_node)
            parts = full.split(".")
        leaf = parts[-1]
        outer = ".".join(parts[:-1]) if len(parts) > 1 else ""
        if outer:
            parent = f"{parent}.{outer}" if parent else outer
        # `declare module "x"` declares (or augments) a module for everyone
        vis = (
            Visibility.PUBLIC
            if name_node.type == "string"
            else self._vis(node, full, parent, ckind)
        )
        self.emit(node, name_node, leaf, Kind.MODULE, parent, vis)
        p = node.parent
        ambient = (
            ckind == _AMBIENT
            or name_node.type == "string"
            or (p is not None and p.type == "ambient_declaration")
        )
        self.push(node, parent, leaf, _AMBIENT if ambient else _MODULE)

    def declarator(self, node: Any, parent: str | None, ckind: str | None) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type != "identifier":
            return  # destructuring patterns bind no single definition
        name = node_text(name_node)
        value = node.child_by_field_name("value")
        vt = value.type if value is not None else ""
        vis = self._vis(node, name, parent, ckind)
        if vt in _FUNCTION_VALUES:
            if self.too_deep():
                return
            self.emit(node, name_node, name, Kind.FUNCTION, parent, vis)
            self.push(node, parent, name, _FUNCTION)
        elif vt in _CLASS_VALUES:
            self.emit(node, name_node, name, Kind.CLASS, parent, vis)
            self.push(node, parent, name, _CLASS)
        else:
            decl = node.parent
            is_const = (
                decl is not None and decl.child(0) is not None and decl.child(0).type == "const"
            )
            kind = Kind.CONSTANT if is_const else Kind.VARIABLE
            self.emit(node, name_node, name, kind, parent, vis)

    def object_member(self, node: Any, parent: str | None, ckind: str | None) -> None:
        """A function member of an object literal bound to a name (`const api = { get() {} }`)."""
        if ckind == _FUNCTION:
            return  # an object built inside a function body is a local value, not an API
        name_node = node.child_by_field_name("name") or node.child_by_field_name("key")
        obj = node.parent
        holder = obj.parent if obj is not None else None
        if name_node is None or holder is None:
            return
        name = member_name(name_node)
        if holder.type == "arguments":  # `const X = factory(…, { m() {} })`
            call = holder.parent
            holder = call.parent if call is not None else None
            if holder is None:
                return
        if holder.type == "variable_declarator":
            owner_node = holder.child_by_field_name("name")
            if owner_node is None:
                return
            owner: str | None = node_text(owner_node)
            vis = self._vis(holder, owner or "", parent, ckind)
        else:  # assignment: `exports.x = {…}`, `module.exports = {…}`, `Foo.bar = {…}`
            left = holder.child_by_field_name("left")
            if left is None:
                return
            target = node_text(left)
            vis = Visibility.PUBLIC
            if target == "module.exports":
                owner = None
            elif target.startswith(("exports.", "module.exports.")):
                owner = target.rsplit(".", 1)[1]
            else:
                # `Foo.prototype = { m: function () {} }`: methods of Foo
                owner = target.removeprefix("this.").removesuffix(".prototype")
        if owner is None:
            self.emit(node, name_node, name, Kind.FUNCTION, parent, vis)
            self.push(node, parent, name, _FUNCTION)
            return
        scope = f"{parent}.{owner}" if parent else owner
        self.emit(node, name_node, name, Kind.METHOD, scope, vis)
        self.push(node, scope, name, _FUNCTION)

    def assignment(self, node: Any, parent: str | None) -> None:
        """CommonJS and prototype assignments: `exports.f = …`, `Foo.prototype.m = …`."""
        left = node.child_by_field_name("left")
        if left is None or left.type != "member_expression":
            return
        prop = left.child_by_field_name("property")
        obj = left.child_by_field_name("object")
        if prop is None or obj is None or prop.type not in _NAME_TYPES:
            return
        name = node_text(prop)
        right = node.child_by_field_name("right")
        is_class = right is not None and right.type == "class"
        kind = Kind.CLASS if is_class else Kind.FUNCTION
        ot = obj.type
        if ot == "identifier":
            owner = node_text(obj)
            if owner != "exports" and owner != "module":
                # `Foo.create = function …`: a static member of Foo
                parent, kind = owner, Kind.METHOD
        elif ot == "member_expression":
            # `Foo.prototype.m = …`, `app.util.m = …` (a namespace object),
            # `ns.Foo.prototype.m = …`: a member of the dotted path, `.prototype` dropped
            path = dotted(obj)
            if path is None:
                return
            if path != "module.exports":
                if path.startswith(("exports.", "module.exports.")):
                    return
                parent, kind = path.removesuffix(".prototype"), Kind.METHOD
        else:
            return
        self.emit(node, prop, name, kind, parent, Visibility.PUBLIC)
        self.push(node, parent, name, _CLASS if is_class else _FUNCTION)


def _first(item: tuple[int, int, Any]) -> tuple[int, int]:
    return (item[0], item[1])


def extract(grammar: str, query_file: str, language: str, source: bytes) -> list[Symbol]:
    """Every definition in `source` for a TS/TSX/JS grammar; never raises on bad input."""
    from rq_engine.lang._tsrepair import separate_signatures
    from rq_engine.lang.grammar import parse, query, ts

    QueryCursor = ts().QueryCursor

    try:
        if grammar == "typescript":
            source = separate_signatures(source)
        tree = parse(grammar, source)
        captures = QueryCursor(query(grammar, query_file)).captures(tree.root_node)
        return _Extractor(source, language).run(captures)
    except (ValueError, UnicodeError, RecursionError):
        return []
