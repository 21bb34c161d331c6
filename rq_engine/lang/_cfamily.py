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

Recovering from what the grammar misreads (macros it cannot know): a body with no
head in front of it (`orphan_body`: the head is read from its text), a body the
grammar could not close (`salvage`: what starts at column 0 inside it is taken at
file scope), and a class or namespace whose body ends inside an ERROR node (`error`).
"""

from __future__ import annotations

import re

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common
from rq_engine.lang._cparse import parse_skipping_bodies

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from rq_engine.lang._common import Node

# Nodes whose children are definitions in the same scope as the node itself.
_TRANSPARENT = frozenset(
    {
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "declaration_list",
        "template_declaration",
        "ERROR",  # Tree-sitter's recovery wraps whole definitions in it
    }
)
_SPECIFIERS = {
    "struct_specifier": Kind.STRUCT,
    "union_specifier": Kind.UNION,
    "enum_specifier": Kind.ENUM,
    "class_specifier": Kind.CLASS,
}
# Declarators that wrap the one that names the thing.
_WRAPPERS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
        "init_declarator",
        "array_declarator",
        "type_qualifier",
    }
)
_NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type"})
_INLINE = re.compile(rb"\binline\b|__inline|always_inline")
_STATIC = re.compile(rb"\bstatic\b")
_CONST = re.compile(rb"\b(?:constexpr|const)\b")
# What salvage() takes at column 0 inside a broken body.
_SALVAGED = frozenset(
    {
        "function_definition",
        "declaration",
        "type_definition",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
        "preproc_def",
        "preproc_function_def",
        "namespace_definition",
        "template_declaration",
    }
)
# Every node type block() acts on.
_DISPATCHED = (
    _TRANSPARENT
    | _SPECIFIERS.keys()
    | {
        "function_definition",
        "compound_statement",
        "declaration",
        "field_declaration",
        "preproc_def",
        "preproc_function_def",
        "type_definition",
        "access_specifier",
        "namespace_definition",
        "linkage_specification",
        "alias_declaration",
        "friend_declaration",
    }
)
# An ERROR node's children that open a scope the grammar could not close (error()).
_OPENERS = frozenset({"class", "struct", "union", "namespace"})
_OPENER_NAMES = frozenset(
    {
        "type_identifier",
        "identifier",
        "namespace_identifier",
        "template_type",
        "qualified_identifier",
    }
)
_KEYWORDS = frozenset(
    "if for while switch return sizeof do else case goto break continue default typedef"
    " struct union enum static extern const volatile inline int char void long short"
    " unsigned signed float double".split()
)
_NOT_NAMES = frozenset(w.encode() for w in _KEYWORDS)
_LAST_WORD = re.compile(rb"([A-Za-z_]\w*)\s*$")
_FIRST_ARG = re.compile(rb"\s*([A-Za-z_]\w*)\s*[,)]")
_SPACES = re.compile(r"\s+")


class Walk:
    """One file's walk: `run()` returns its definitions in source order.

    `cpp` reads C++ (scopes, access, methods); `header` marks C read as a header,
    where a `static inline` function is the header's API, not a private helper.
    """

    __slots__ = ("src", "lang", "cpp", "header", "found", "decls", "defs", "apart", "namespaces")

    def __init__(self, src: bytes, language: str, *, cpp: bool, header: bool) -> None:
        self.src = src
        self.lang = language
        self.cpp = cpp
        self.header = header
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
        found.sort(key=_position)
        return [s for _, s in found]

    # ---------------------------------------------------------------- helpers

    def text(self, node: Node) -> str:
        return _common.text(self.src, node)

    def emit(
        self,
        name: str,
        kind: Kind,
        at: Node,
        whole: Node,
        parent: str | None,
        vis: Visibility,
    ) -> None:
        if not name or (name in _KEYWORDS and kind is not Kind.MACRO):
            return  # a zero-width MISSING node, or a keyword the recovery took for a name
        s = Symbol(
            name,
            kind,
            int(at.start_point[0]) + 1,
            _common.last_line(whole),
            parent,
            vis,
            self.lang,
        )
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
        (else the current access section); `cls` the enclosing class's own name (its
        constructors are named after it); `guard` the include guard's name.
        Returns the access in force after the last node (an `#ifdef`'d `public:`)."""
        for i, n in enumerate(nodes):
            t = n.type
            if t not in _DISPATCHED:
                continue  # comments, includes, expression statements: most nodes
            if t == "preproc_def" or t == "preproc_function_def":
                self.macro(n, guard)
            elif t == "function_definition":
                self.function(n, scope, access, cls)
            elif t == "compound_statement":
                self.orphan_body(nodes, i, scope, False)
            elif t == "declaration" or t == "field_declaration":
                self.declaration(n, scope, access, cls)
            elif t == "ERROR":
                access = self.error(n, scope, access, cls)
            elif t in _TRANSPARENT:
                g = None
                if top and t == "preproc_ifdef" and n.child(0) is not None:
                    if n.child(0).type == "#ifndef":
                        name = n.child_by_field_name("name")
                        g = self.text(name) if name is not None else None
                access = self.block(n.children, scope, access, cls, g, False)
            elif t in _SPECIFIERS:
                self.specifier(n, scope, access)
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
                body = n.child_by_field_name("body")
                if body is not None:
                    kids = body.children if body.type == "declaration_list" else [body]
                    self.block(kids, scope, access, cls, None, False)
            elif t == "alias_declaration":
                name = n.child_by_field_name("name")
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

    # ------------------------------------------------------- recovering from macros

    def error(
        self, n: Node, scope: str | None, access: Visibility | None, cls: str | None
    ) -> Visibility | None:
        """An ERROR node: its children are read in place, except that a class,
        struct, union or namespace whose body the grammar could not close appears
        as its keyword, its name and `{` among them (LLVM's IRBuilderBase): what
        follows the `{` is read as that body."""
        kids = n.children
        for k in range(len(kids) - 2):
            keyword = kids[k].type
            if keyword not in _OPENERS:
                continue
            name_node = kids[k + 1]
            brace = next(
                (i for i in range(k + 2, min(k + 5, len(kids))) if kids[i].type == "{"), -1
            )
            if brace < 0 or name_node.type not in _OPENER_NAMES:
                continue
            access = self.block(kids[:k], scope, access, cls, None, False)
            chain = self.scoped_name(name_node)
            if not chain:
                return access
            name = chain[-1]
            if keyword == "namespace":
                kind, vis, default = Kind.MODULE, Visibility.PUBLIC, None
            else:
                kind = _SPECIFIERS[keyword + "_specifier"]
                vis = access or Visibility.PUBLIC
                default = Visibility.PRIVATE if kind is Kind.CLASS else Visibility.PUBLIC
            parent = scope if self.cpp else None
            self.emit(name, kind, kids[k], n, parent, vis)
            inner = self.join(parent, name) if self.cpp else scope
            if kind is Kind.MODULE:
                self.namespaces.add(name)
            own = name if (self.cpp and kind is not Kind.MODULE) else None
            self.block(kids[brace + 1 :], inner, default, own, None, False)
            return access
        return self.block(kids, scope, access, cls, None, False)

    def orphan_body(self, nodes: list[Node], i: int, scope: str | None, salvage: bool) -> None:
        """A `{ … }` where no statement may stand: the grammar failed on the head of a
        function definition before it, mostly on a macro it cannot know
        (`static __always_inline __alloc_size(1) void *kmalloc(…)`,
        `SYSCALL_DEFINE3(open, …)`). The head is the text from the siblings before
        the body that do not end a declaration; the name is read from its text."""
        body = nodes[i]
        j = i
        src = self.src
        while j > 0:
            p = nodes[j - 1]
            pt = p.type
            if pt == "comment" or pt.startswith("preproc") or pt == "compound_statement":
                break
            if p.end_byte > p.start_byte and src[p.end_byte - 1] in b";}":
                break
            j -= 1
        if j == i:
            return
        first = nodes[j]
        if salvage and first.start_point[1] != 0:
            return
        head = src[first.start_byte : body.start_byte]
        found = _head_name(head)
        if found is None:
            return
        name, at = found
        vis = Visibility.PUBLIC
        if _STATIC.search(head) and not (self.header and _INLINE.search(head)):
            vis = Visibility.PRIVATE
        s = Symbol(
            name,
            Kind.FUNCTION,
            int(first.start_point[0]) + head.count(b"\n", 0, at) + 1,
            _common.last_line(body),
            scope if self.cpp else None,
            vis,
            self.lang,
        )
        self.found.append((first.start_byte + at, s))
        if body.has_error:
            self.salvage(body.children, scope)

    def salvage(self, nodes: list[Node], scope: str | None) -> None:
        """Definitions the grammar buried in a function body it could not close.

        A macro the grammar cannot read (`for_each_sched_entity(se)` as a loop head)
        can leave a body open to the end of the file: Linux's kernel/sched/fair.c
        became one 5,000-line function. Inside a body with a syntax error, the nodes
        that start at column 0 are taken for what they would be at file scope (a
        definition at file scope starts there; a body's statements are indented)."""
        for i, c in enumerate(nodes):
            t = c.type
            if t in _SALVAGED:
                if c.start_point[1] == 0:
                    self.block([c], scope, None, None, None, False)
                elif c.has_error:
                    self.salvage(c.children, scope)
            elif t == "compound_statement":
                if c.start_point[1] == 0 or not c.has_error:
                    self.orphan_body(nodes, i, scope, True)
                else:
                    self.salvage(c.children, scope)
            elif t in _TRANSPARENT or (c.has_error and c.child_count):
                self.salvage(c.children, scope)

    def namespace(self, n: Node, scope: str | None) -> None:
        body = n.child_by_field_name("body")
        name = n.child_by_field_name("name")
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
        name = n.child_by_field_name("name")
        if name is None or name.end_byte == name.start_byte:
            return
        text = self.src[name.start_byte : name.end_byte].decode("utf-8", "replace")
        if text == guard and n.type == "preproc_def":
            value = n.child_by_field_name("value")
            if value is None or self.text(value).strip() in ("", "1"):
                return  # `#ifndef FOO_H / #define FOO_H`: an include guard, not an API
        row = n.start_point[0]
        end_row, end_col = n.end_point
        end = end_row if end_col == 0 and end_row > row else end_row + 1
        s = Symbol(text, Kind.MACRO, row + 1, end, None, Visibility.PUBLIC, self.lang)
        self.found.append((n.start_byte, s))

    def specifier(
        self, n: Node, scope: str | None, access: Visibility | None, name_vis: bool = True
    ) -> str | None:
        """A struct/union/class/enum with a body: the type, its enumerators, what it
        nests. Returns the type's name (None: anonymous, or no body)."""
        body = n.child_by_field_name("body")
        if body is None:
            return None
        kind = _SPECIFIERS[n.type]
        name_node = n.child_by_field_name("name")
        name = None
        parent = scope if self.cpp else None
        if name_node is not None:
            chain = self.scoped_name(name_node)
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
                    en = e.child_by_field_name("name")
                    if en is not None:
                        self.emit(self.text(en), Kind.CONSTANT, e, e, owner, vis)
                elif e.type in _TRANSPARENT:  # `#ifdef`'d enumerators
                    for ee in e.children:
                        if ee.type == "enumerator":
                            en = ee.child_by_field_name("name")
                            if en is not None:
                                self.emit(self.text(en), Kind.CONSTANT, ee, ee, owner, vis)
            return name
        default = Visibility.PRIVATE if kind is Kind.CLASS else Visibility.PUBLIC
        self.block(body.children, inner, default, name if self.cpp else None, None, False)
        return name

    def scoped_name(self, node: Node) -> list[str]:
        """A (possibly qualified, possibly templated) name as its parts:
        `a::b::C<T>` -> ["a", "b", "C"]; `~Foo` -> ["~Foo"]."""
        parts: list[str] = []
        for _ in range(64):
            t = node.type
            if t == "qualified_identifier" or t == "nested_namespace_specifier":
                scope = node.child_by_field_name("scope")
                if scope is not None:
                    parts.extend(self.scoped_name(scope))
                nxt = node.child_by_field_name("name")
                if nxt is None:
                    break
                node = nxt
                continue
            if t == "template_type" or t == "template_function" or t == "template_method":
                name = node.child_by_field_name("name")
                if name is None:
                    break
                node = name
                continue
            if t == "destructor_name":
                parts.append("~" + self.text(node)[1:].strip())
            elif t == "operator_name":
                parts.append(_operator(self.text(node)))
            elif t == "operator_cast":
                ty = node.child_by_field_name("type")
                parts.append("operator " + (_SPACES.sub(" ", self.text(ty)) if ty else ""))
            elif t in _NAMES or t == "namespace_identifier":
                parts.append(self.text(node))
            break
        return parts

    def declarator(self, node: Node | None) -> tuple[Node | None, bool]:
        """The node naming a declarator, and whether it declares a function (not a
        pointer to one: `int (*fp)(int)` is a variable)."""
        fn = False
        for _ in range(64):
            if node is None:
                return None, fn
            t = node.type
            if t == "function_declarator":
                inner = node.child_by_field_name("declarator")
                if inner is not None and inner.type == "parenthesized_declarator":
                    fn = False
                else:
                    fn = True
                node = inner
            elif t in _WRAPPERS:
                inner = node.child_by_field_name("declarator")
                if inner is None:
                    inner = next(
                        (c for c in node.named_children if c.type != "type_qualifier"), None
                    )
                node = inner
            else:
                return node, fn
        return None, fn

    def storage(self, n: Node) -> set[str]:
        return {self.text(c) for c in n.children if c.type == "storage_class_specifier"}

    def function(
        self,
        n: Node,
        scope: str | None,
        access: Visibility | None,
        cls: str | None,
        friend: bool = False,
    ) -> None:
        name_node, _ = self.declarator(n.child_by_field_name("declarator"))
        if name_node is None:
            return
        if not self.cpp:
            if name_node.type != "identifier":
                return
            vis = Visibility.PUBLIC
            if "static" in self.storage(n):
                decl = n.child_by_field_name("declarator")
                head = self.src[n.start_byte : decl.start_byte if decl else n.start_byte]
                if not (self.header and _INLINE.search(head)):
                    vis = Visibility.PRIVATE
            self.emit(self.text(name_node), Kind.FUNCTION, name_node, n, None, vis)
            body = n.child_by_field_name("body")
            if body is not None and body.has_error:
                self.salvage(body.children, None)
            return
        chain = self.scoped_name(name_node)
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
            if not friend and "static" in self.storage(n):
                vis = Visibility.PRIVATE
        self.emit(name, kind, name_node, n, parent, vis)
        self.defs.add((parent, name))
        if kind is Kind.METHOD and len(chain) > 1:
            if self.found and self.found[-1][1].name == name:
                self.apart.append(self.found[-1][1])
        body = n.child_by_field_name("body")
        if body is not None and body.has_error:
            self.salvage(body.children, scope if access is None else None)

    def declaration(
        self, n: Node, scope: str | None, access: Visibility | None, cls: str | None
    ) -> None:
        ty = n.child_by_field_name("type")
        if ty is not None and ty.type in _SPECIFIERS:
            self.specifier(ty, scope, access)
        storage: set[str] | None = None
        for d in n.children_by_field_name("declarator"):
            name_node, fn = self.declarator(d)
            if name_node is None:
                continue
            if fn:
                if not self.cpp:
                    continue  # a C prototype: the definition is what one jumps to
                # C++: a member declared in its class, or a function declared in its
                # namespace (a header often holds only that: `raw_ostream &errs();`),
                # kept unless this file defines it too
                chain = self.scoped_name(name_node)
                if len(chain) != 1:
                    continue
                if access is None:
                    if storage is None:
                        storage = self.storage(n)
                    kind = Kind.FUNCTION
                    vis = Visibility.PRIVATE if "static" in storage else Visibility.PUBLIC
                else:
                    kind, vis = Kind.METHOD, access
                s = Symbol(
                    chain[0],
                    kind,
                    int(name_node.start_point[0]) + 1,
                    _common.last_line(n),
                    scope,
                    vis,
                    self.lang,
                )
                self.decls.append((name_node.start_byte, s))
                continue
            if access is not None:
                # a field is not a definition one searches; a class constant is
                # (`static constexpr size_t npos = …`: `StringRef::npos`)
                if self.cpp and n.child_by_field_name("default_value") is not None:
                    if storage is None:
                        storage = self.storage(n)
                    if "static" in storage and _CONST.search(self.src, n.start_byte, d.start_byte):
                        name = self.text(name_node)
                        self.emit(name, Kind.CONSTANT, name_node, n, scope, access)
                continue
            if name_node.type != "identifier":
                continue
            if self.src[n.end_byte - 1 : n.end_byte] != b";":
                continue  # no `;`: the grammar's guess at a head it could not read
            if storage is None:
                storage = self.storage(n)
            if "extern" in storage:
                continue
            vis = Visibility.PRIVATE if "static" in storage else Visibility.PUBLIC
            self.emit(self.text(name_node), Kind.VARIABLE, name_node, n, scope, vis)

    def typedef(self, n: Node, scope: str | None, access: Visibility | None) -> None:
        ty = n.child_by_field_name("type")
        if ty is not None and ty.type in _SPECIFIERS:
            self.specifier(ty, scope, access)
        parent = scope if self.cpp else None
        vis = access or Visibility.PUBLIC
        for d in n.children_by_field_name("declarator"):
            name_node, _ = self.declarator(d)
            if name_node is not None and name_node.type in _NAMES:
                self.emit(self.text(name_node), Kind.TYPE, name_node, n, parent, vis)


def _open_paren(h: bytes) -> int:
    """The index of the `(` matching the `)` that ends `h`, or -1."""
    depth = 0
    for k in range(len(h) - 1, -1, -1):
        c = h[k]
        if c == 0x29:  # )
            depth += 1
        elif c == 0x28:  # (
            depth -= 1
            if depth == 0:
                return k
    return -1


def _head_name(head: bytes) -> tuple[str, int] | None:
    """The function a definition head names, and its offset in `head`: the word
    before the parameter list that ends the head (`… void *kmalloc(size_t size, …)`).
    A trailing attribute (`f(void) __acquires(x)`) is stepped over. A head that is
    one upper-case macro call (`SYSCALL_DEFINE3(open, …)`, `BPF_CALL_2(bpf_x, …)`)
    defines the function its first argument names."""
    h = head.rstrip()
    for _ in range(4):
        if not h.endswith(b")"):
            return None
        k = _open_paren(h)
        if k <= 0:
            return None
        m = _LAST_WORD.search(h, 0, k)
        if m is None:
            return None
        word = m.group(1)
        before = h[: m.start()].rstrip()
        if word.startswith(b"__") and before.endswith(b")"):
            h = before
            continue
        if word in _NOT_NAMES:
            return None
        if not before and word.isupper():
            arg = _FIRST_ARG.match(h, k + 1)
            if arg is None:
                return None
            word, at = arg.group(1), arg.start(1)
        else:
            at = m.start(1)
        return word.decode("utf-8", "replace"), at
    return None


def _operator(text: str) -> str:
    """`operator ==` -> `operator==`; `operator new[]` keeps its word: `operator new[]`."""
    rest = _SPACES.sub(" ", text[len("operator") :]).strip()
    if rest[:1].isalpha():
        return "operator " + rest.replace(" [", "[")
    return "operator" + rest.replace(" ", "")


def _position(item: tuple[int, Symbol]) -> int:
    return item[0]
