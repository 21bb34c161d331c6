"""Recovering definitions from what the C and C++ grammars misread: macros they
cannot know. Four cases, each a function of the walk (_cfamily.Walk) it
serves: a body with no head in front of it (`orphan_body`: the head is read from
its text), a body the grammar could not close (`salvage`: what starts at column 0
inside it is taken at file scope), a class or namespace whose body ends
inside an ERROR node (`error`), and a variable whose initializer the grammar
could not read (`error` too: `initialized`).
"""

from __future__ import annotations

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common
from rq_engine.lang._cnames import (
    INLINE,
    SPECIFIERS,
    STATIC,
    TRANSPARENT,
    declarator,
    head_name,
    scoped_name,
)

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from rq_engine.lang._cfamily import Walk
    from rq_engine.lang._common import Node

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


def error(
    w: Walk, n: Node, scope: str | None, access: Visibility | None, cls: str | None
) -> Visibility | None:
    """An ERROR node: its children are read in place, except that a class,
    struct, union or namespace whose body the grammar could not close appears
    as its keyword, its name and `{` among them (LLVM's IRBuilderBase): what
    follows the `{` is read as that body."""
    kids = n.children
    if access is None and n.start_point[1] == 0:
        initialized(w, kids, scope)
    for k in range(len(kids) - 2):
        keyword = kids[k].type
        if keyword not in _OPENERS:
            continue
        name_node = kids[k + 1]
        brace = next((i for i in range(k + 2, min(k + 5, len(kids))) if kids[i].type == "{"), -1)
        if brace < 0 or name_node.type not in _OPENER_NAMES:
            continue
        access = w.block(kids[:k], scope, access, cls, None, False)
        chain = scoped_name(w.src, name_node, w.f)
        if not chain:
            return access
        name = chain[-1]
        if keyword == "namespace":
            kind, vis, default = Kind.MODULE, Visibility.PUBLIC, None
        else:
            kind = SPECIFIERS[keyword + "_specifier"]
            vis = access or Visibility.PUBLIC
            default = Visibility.PRIVATE if kind is Kind.CLASS else Visibility.PUBLIC
        parent = scope if w.cpp else None
        w.emit(name, kind, kids[k], n, parent, vis)
        inner = w.join(parent, name) if w.cpp else scope
        if kind is Kind.MODULE:
            w.namespaces.add(name)
        own = name if (w.cpp and kind is not Kind.MODULE) else None
        w.block(kids[brace + 1 :], inner, default, own, None, False)
        return access
    return w.block(kids, scope, access, cls, None, False)


# What may stand before an initialized variable's type, and the type itself.
_QUALIFIERS = frozenset({"storage_class_specifier", "type_qualifier"})
_TYPES = frozenset(
    {
        "primitive_type",
        "sized_type_specifier",
        "type_identifier",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "qualified_identifier",
        "template_type",
    }
)


def initialized(w: Walk, kids: list[Node], scope: str | None) -> None:
    """A variable at file (or namespace) scope whose initializer the grammar could
    not read opens an ERROR node with its head: qualifiers, a type, a declarator and
    `=` (`static struct cftype cgroup_psi_files[] = {` with `#ifdef CONFIG_PSI`
    inside the braces: the kernel slice lost ~20 such tables, `cgroup_subsys` too).
    The head names the variable; it ends at the first `}` line at column 0 (the
    ERROR itself may run to the end of the file)."""
    i = 0
    while i < len(kids) and kids[i].type in _QUALIFIERS:
        i += 1
    if i + 2 >= len(kids) or kids[i].type not in _TYPES or kids[i + 2].type != "=":
        return
    name_node, fn = declarator(kids[i + 1], w.f)
    if name_node is None or fn or name_node.type != "identifier":
        return
    src = w.src
    head = src[kids[0].start_byte : kids[i].start_byte]
    if b"extern" in head:
        return
    at = name_node.start_byte
    line = int(name_node.start_point[0]) + 1
    close = src.find(b"\n}", at)
    end = line + src.count(b"\n", at, close + 1) if close >= 0 else line
    vis = Visibility.PRIVATE if STATIC.search(head) else Visibility.PUBLIC
    name = src[at : name_node.end_byte].decode("utf-8", "replace")
    s = Symbol(name, Kind.VARIABLE, line, end, scope if w.cpp else None, vis, w.lang)
    w.found.append((at, s))


def orphan_body(w: Walk, nodes: list[Node], i: int, scope: str | None, salvaging: bool) -> None:
    """A `{ … }` where no statement may stand: the grammar failed on the head of a
    function definition before it, mostly on a macro it cannot know
    (`static __always_inline __alloc_size(1) void *kmalloc(…)`,
    `SYSCALL_DEFINE3(open, …)`). The head is the text from the siblings before
    the body that do not end a declaration; the name is read from its text.
    `salvaging` (inside a broken body): only a head that starts at column 0."""
    body = nodes[i]
    j = i
    src = w.src
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
    if salvaging and first.start_point[1] != 0:
        return
    head = src[first.start_byte : body.start_byte]
    found = head_name(head)
    if found is None:
        return
    name, at = found
    vis = Visibility.PUBLIC
    if STATIC.search(head) and not (w.header and INLINE.search(head)):
        vis = Visibility.PRIVATE
    s = Symbol(
        name,
        Kind.FUNCTION,
        int(first.start_point[0]) + head.count(b"\n", 0, at) + 1,
        _common.last_line(body),
        scope if w.cpp else None,
        vis,
        w.lang,
    )
    w.found.append((first.start_byte + at, s))
    if body.has_error:
        salvage(w, body.children, scope)


def salvage(w: Walk, nodes: list[Node], scope: str | None) -> None:
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
                w.block([c], scope, None, None, None, False)
            elif c.has_error:
                salvage(w, c.children, scope)
        elif t == "compound_statement":
            if c.start_point[1] == 0 or not c.has_error:
                orphan_body(w, nodes, i, scope, True)
            else:
                salvage(w, c.children, scope)
        elif t in TRANSPARENT or (c.has_error and c.child_count):
            salvage(w, c.children, scope)
