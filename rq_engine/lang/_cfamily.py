"""The definition walk the C and C++ plugins share. Knows both grammars' node types.

Imports tree-sitter only through rq_engine.lang.grammar, lazily (plugins import this
module on first extract()). tree-sitter-cpp extends tree-sitter-c, so one walk reads
both: C++ adds namespaces, classes, templates, access sections and qualified names.

Why a walk and not a query: a C file is a list of declarations, most of them long
function bodies, and a query's cursor steps through every node of those bodies. The
walk visits only what can hold a definition (the file, preprocessor conditionals,
`extern "C"`, namespaces, class bodies, templates) and never enters a function body
(_cparse.py leaves most bodies out of the parse altogether).
What each plugin emits, and why, is in c.py and cpp.py.
What the grammars' node types mean and how a name is read out of a node is in
_cnames.py; recovering definitions from what the grammar misreads (macros it
cannot know), in _crecover.py.
"""

from __future__ import annotations

import re
from operator import itemgetter

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common, _crecover
from rq_engine.lang._cnames import (
    INLINE,
    KEYWORDS,
    NAMES,
    SPECIFIERS,
    TRANSPARENT,
    declarator,
    ids,
    scoped_name,
    storage_classes,
)
from rq_engine.lang._cparse import parse_skipping_bodies

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from rq_engine.lang._common import Node

_CONST = re.compile(rb"\b(?:constexpr|const)\b")


class Walk:
    """One file's walk: `run()` returns its definitions in source order.

    `cpp` reads C++ (scopes, access, methods); `header` marks C read as a header,
    where a `static inline` function is the header's API, not a private helper.
    """

    __slots__ = (
        "src",
        "lang",
        "cpp",
        "header",
        "f",
        "found",
        "decls",
        "defs",
        "apart",
        "namespaces",
    )

    def __init__(self, src: bytes, language: str, *, cpp: bool, header: bool) -> None:
        self.src = src
        self.lang = language
        self.cpp = cpp
        self.header = header
        self.f = ids("cpp" if cpp else "c")  # the grammar's field and kind ids (_cnames)
        self.found: list[tuple[int, Symbol]] = []
        # C++ methods declared in a class body, and those defined in the file: a
        # declaration is dropped when the file also defines the member (the body is
        # where a developer wants to land; a template's members are often both).
        self.decls: list[tuple[int, Symbol]] = []
        self.defs: set[tuple[str | None, str]] = set()
        self.apart: list[Symbol] = []  # members defined outside their class (`A::f`)
        self.namespaces: set[str] = set()

    def run(self) -> list[Symbol]:
        tree = parse_skipping_bodies("cpp" if self.cpp else "c", self.src)
        self.block(tree.root_node.children, None, None, None, None, True)
        found = self.found
        defs = self.defs
        found.extend(d for d in self.decls if (d[1].parent, d[1].name) not in defs)
        if self.apart and self.decls:
            # `void A::f() {}` does not say f is protected; its declaration in A does
            declared = {(s.parent, s.name): s.visibility for _, s in self.decls}
            for s in self.apart:
                s.visibility = declared.get((s.parent, s.name), s.visibility)
        found.sort(key=_POSITION)
        return [s for _, s in found]

    # ---------------------------------------------------------------- helpers

    def text(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def emit(
        self,
        name: str,
        kind: Kind,
        at: Node,
        whole: Node,
        parent: str | None,
        vis: Visibility,
    ) -> None:
        if not name or (name in KEYWORDS and kind is not Kind.MACRO):
            return  # a zero-width MISSING node, or a keyword the recovery took for a name
        row, col = whole.end_point  # _common.last_line, inlined (~90k calls a corpus)
        end = row if col == 0 and row > whole.start_point[0] else row + 1
        s = Symbol(name, kind, at.start_point[0] + 1, end, parent, vis, self.lang)
        self.found.append((at.start_byte, s))

    def join(self, scope: str | None, name: str) -> str:
        return f"{scope}::{name}" if scope else name

    # ---------------------------------------------------------------- the walk

    def block(
        self,
        nodes: list[Node],
        scope: str | None,
        access: Visibility | None,
        cls: str | None,
        guard: str | None,
        top: bool,
    ) -> Visibility | None:
        """Definitions among `nodes`. `access` is None outside a class or struct body
        (else the current access section); `cls` the enclosing class's own name (C++:
        its constructors are named after it; C: its fields' parent); `guard` the
        include guard's name.
        Returns the access in force after the last node (an `#ifdef`'d `public:`)."""
        dispatched = self.f.dispatched
        for i, n in enumerate(nodes):
            if n.kind_id not in dispatched:
                continue  # comments, includes, expression statements: most nodes
            t = n.type
            if t == "preproc_def" or t == "preproc_function_def":
                self.macro(n, guard)
            elif t == "function_definition":
                self.function(n, scope, access, cls)
            elif t == "compound_statement":
                _crecover.orphan_body(self, nodes, i, scope, False)
            elif t == "declaration" or t == "field_declaration":
                self.declaration(n, scope, access, cls)
            elif t == "ERROR":
                access = _crecover.error(self, n, scope, access, cls)
            elif t in TRANSPARENT:
                g = None
                if top and t == "preproc_ifdef" and n.child(0) is not None:
                    if n.child(0).type == "#ifndef":
                        name = n.child_by_field_id(self.f.name)
                        g = self.text(name) if name is not None else None
                access = self.block(n.children, scope, access, cls, g, False)
            elif t in SPECIFIERS:
                self.specifier(n, scope, access, cls)
            elif t == "type_definition":
                self.typedef(n, scope, access)
            elif t == "access_specifier":
                word = self.text(n)
                access = (
                    Visibility.PUBLIC
                    if word == "public"
                    else Visibility.PROTECTED
                    if word == "protected"
                    else Visibility.PRIVATE
                )
            elif t == "namespace_definition":
                self.namespace(n, scope)
            elif t == "linkage_specification":
                body = n.child_by_field_id(self.f.body)
                if body is not None:
                    kids = body.children if body.type == "declaration_list" else [body]
                    self.block(kids, scope, access, cls, None, False)
            elif t == "alias_declaration":
                name = n.child_by_field_id(self.f.name)
                if name is not None:
                    vis = access or Visibility.PUBLIC
                    self.emit(self.text(name), Kind.TYPE, n, n, scope, vis)
            elif t == "friend_declaration":
                # a friend defined in a class is a function of the enclosing namespace
                outer = scope.rsplit("::", 1)[0] if scope and "::" in scope else None
                for c in n.children:
                    if c.type == "function_definition":
                        self.function(c, outer, None, None, friend=True)
        return access

    def namespace(self, n: Node, scope: str | None) -> None:
        body = n.child_by_field_id(self.f.body)
        name = n.child_by_field_id(self.f.name)
        inner = scope
        if name is not None:
            # `namespace a::b {` names two nested namespaces
            parts = [p for p in self.text(name).replace(" ", "").split("::") if p]
            for p in parts:
                self.emit(p, Kind.MODULE, name, n, inner, Visibility.PUBLIC)
                inner = self.join(inner, p)
                self.namespaces.add(p)
        if body is not None:
            start, start_decls = len(self.found), len(self.decls)
            self.block(body.children, inner, None, None, None, False)
            if name is None:  # an anonymous namespace: internal linkage, file-private
                for _, s in (*self.found[start:], *self.decls[start_decls:]):
                    s.visibility = Visibility.PRIVATE

    def macro(self, n: Node, guard: str | None) -> None:
        # the commonest definition in a header (90k in the kernel slice's): inlined
        name = n.child_by_field_id(self.f.name)
        if name is None:
            return
        start, end = name.start_byte, name.end_byte
        if start == end:
            return
        text = self.src[start:end].decode("utf-8", "replace")
        if text == guard and n.type == "preproc_def":
            value = n.child_by_field_id(self.f.value)
            if value is None or self.text(value).strip() in ("", "1"):
                return  # `#ifndef FOO_H / #define FOO_H`: an include guard, not an API
        row = n.start_point[0]
        end_row, end_col = n.end_point
        end = end_row if end_col == 0 and end_row > row else end_row + 1
        s = Symbol(text, Kind.MACRO, row + 1, end, None, Visibility.PUBLIC, self.lang)
        self.found.append((n.start_byte, s))

    def specifier(
        self, n: Node, scope: str | None, access: Visibility | None, owner: str | None = None
    ) -> str | None:
        """A struct/union/class/enum with a body: the type, its enumerators, its fields,
        what it nests. Returns the type's name (None: anonymous, or no body).
        `owner` (C only): whose fields an anonymous one's are — the struct it sits in
        (`s.a` reaches a member of an anonymous union in s), or the typedef naming it."""
        f = self.f
        body = n.child_by_field_id(f.body)
        if body is None:
            return None
        kind = SPECIFIERS[n.type]
        name_node = n.child_by_field_id(f.name)
        name = None
        parent = scope if self.cpp else None
        if name_node is not None:
            chain = scoped_name(self.src, name_node, f)
            if chain:
                name = chain[-1]
                if self.cpp and len(chain) > 1:  # `struct Outer::Inner {` defined apart
                    parent = self.join(scope, "::".join(chain[:-1]))
        vis = access or Visibility.PUBLIC
        if name:
            self.emit(name, kind, n, n, parent, vis)
        inner = self.join(parent, name) if (self.cpp and name) else scope
        if kind is Kind.ENUM:
            scoped = self.cpp and any(c.type in ("class", "struct") for c in n.children[:3])
            owner = inner if scoped else (scope if self.cpp else None)
            for e in body.children:
                if e.type == "enumerator":
                    en = e.child_by_field_id(f.name)
                    if en is not None:
                        self.emit(self.text(en), Kind.CONSTANT, e, e, owner, vis)
                elif e.type in TRANSPARENT:  # `#ifdef`'d enumerators
                    for ee in e.children:
                        if ee.type == "enumerator":
                            en = ee.child_by_field_id(f.name)
                            if en is not None:
                                self.emit(self.text(en), Kind.CONSTANT, ee, ee, owner, vis)
            return name
        default = Visibility.PRIVATE if kind is Kind.CLASS else Visibility.PUBLIC
        # (C: `cls` names the struct whose fields the body holds; C++: whose constructors)
        self.block(body.children, inner, default, name if self.cpp else name or owner, None, False)
        return name

    def function(
        self,
        n: Node,
        scope: str | None,
        access: Visibility | None,
        cls: str | None,
        friend: bool = False,
    ) -> None:
        f = self.f
        decl = n.child_by_field_id(f.declarator)
        name_node, _ = declarator(decl, f)
        if name_node is None:
            return
        if not self.cpp:
            if name_node.type != "identifier":
                return
            vis = Visibility.PUBLIC
            if b"static" in storage_classes(self.src, n, f):
                head = self.src[n.start_byte : decl.start_byte if decl else n.start_byte]
                if not (self.header and INLINE.search(head)):
                    vis = Visibility.PRIVATE
            self.emit(self.text(name_node), Kind.FUNCTION, name_node, n, None, vis)
            body = n.child_by_field_id(f.body) if n.has_error else None
            if body is not None and body.has_error:
                _crecover.salvage(self, body.children, None)
            return
        chain = scoped_name(self.src, name_node, f)
        if not chain:
            return
        name = chain[-1]
        parent: str | None
        if len(chain) > 1:  # `A::B::f` defined outside its class: parent A::B
            parent = self.join(scope, "::".join(chain[:-1]))
            in_namespace = chain[-2] in self.namespaces and chain[-2] != name
            kind = Kind.FUNCTION if in_namespace else Kind.METHOD
            vis = Visibility.PUBLIC
        elif access is not None and not friend:
            parent, kind, vis = scope, Kind.METHOD, access
        else:
            parent, kind = scope, Kind.FUNCTION
            vis = Visibility.PUBLIC
            if not friend and b"static" in storage_classes(self.src, n, f):
                vis = Visibility.PRIVATE
        self.emit(name, kind, name_node, n, parent, vis)
        self.defs.add((parent, name))
        if kind is Kind.METHOD and len(chain) > 1:
            if self.found and self.found[-1][1].name == name:
                self.apart.append(self.found[-1][1])
        body = n.child_by_field_id(f.body) if n.has_error else None  # (has_error: ~30 ns)
        if body is not None and body.has_error:
            _crecover.salvage(self, body.children, scope if access is None else None)

    def declaration(
        self, n: Node, scope: str | None, access: Visibility | None, cls: str | None
    ) -> None:
        f = self.f
        ty = n.child_by_field_id(f.type)
        if ty is not None and ty.type in SPECIFIERS:
            self.specifier(ty, scope, access, cls)
        if access is not None and not self.cpp:
            # a C struct's fields (`task_struct.pid`; a function pointer `file_operations.open`
            # too): never prototypes nor globals. Parent: the struct's tag (C's names have no
            # other scope), none for an anonymous struct nothing names.
            for d in n.children_by_field_id(f.declarator):
                name_node, fn = declarator(d, f)
                if name_node is not None and not fn and name_node.type in NAMES:
                    self.emit(self.text(name_node), Kind.FIELD, name_node, n, cls, access)
            return
        storage: set[bytes] | None = None
        for d in n.children_by_field_id(f.declarator):
            name_node, fn = declarator(d, f)
            if name_node is None:
                continue
            if fn:
                if not self.cpp:
                    continue  # a C prototype: the definition is what one jumps to
                # C++: a member declared in its class, or a function declared in its
                # namespace (a header often holds only that: `raw_ostream &errs();`),
                # kept unless this file defines it too
                chain = scoped_name(self.src, name_node, f)
                if len(chain) != 1:
                    continue
                if access is None:
                    if storage is None:
                        storage = storage_classes(self.src, n, f)
                    kind = Kind.FUNCTION
                    vis = Visibility.PRIVATE if b"static" in storage else Visibility.PUBLIC
                else:
                    kind, vis = Kind.METHOD, access
                line = name_node.start_point[0] + 1
                s = Symbol(chain[0], kind, line, _common.last_line(n), scope, vis, self.lang)
                self.decls.append((name_node.start_byte, s))
                continue
            if access is not None:
                # a data member (`SmallVectorBase::Size`), or a class constant
                # (`static constexpr size_t npos = …`: `StringRef::npos`)
                if name_node.type not in NAMES:
                    continue
                kind = Kind.FIELD
                if n.child_by_field_id(f.default_value) is not None:
                    if storage is None:
                        storage = storage_classes(self.src, n, f)
                    if b"static" in storage and _CONST.search(self.src, n.start_byte, d.start_byte):
                        kind = Kind.CONSTANT
                self.emit(self.text(name_node), kind, name_node, n, scope, access)
                continue
            if name_node.type != "identifier":
                continue
            if self.src[n.end_byte - 1 : n.end_byte] != b";":
                continue  # no `;`: the grammar's guess at a head it could not read
            if storage is None:
                storage = storage_classes(self.src, n, f)
            if b"extern" in storage:
                continue
            vis = Visibility.PRIVATE if b"static" in storage else Visibility.PUBLIC
            self.emit(self.text(name_node), Kind.VARIABLE, name_node, n, scope, vis)

    def typedef(self, n: Node, scope: str | None, access: Visibility | None) -> None:
        f = self.f
        ty = n.child_by_field_id(f.type)
        if ty is not None and ty.type in SPECIFIERS:
            # `typedef struct { … } foo_t;`: C reaches its fields as `foo_t.x`
            owner = None
            if not self.cpp:
                first, _ = declarator(n.child_by_field_id(f.declarator), f)
                owner = self.text(first) if first is not None else None
            self.specifier(ty, scope, access, owner)
        parent = scope if self.cpp else None
        vis = access or Visibility.PUBLIC
        for d in n.children_by_field_id(f.declarator):
            name_node, _ = declarator(d, f)
            if name_node is not None and name_node.type in NAMES:
                self.emit(self.text(name_node), Kind.TYPE, name_node, n, parent, vis)


_POSITION = itemgetter(0)  # a found item's start byte
