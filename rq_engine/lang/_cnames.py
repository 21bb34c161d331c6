"""What the C and C++ grammars' nodes mean to the definition walk (_cfamily.py):
tables of node types, and the functions that read a name out of a node or out of
a definition head's text. Pure functions of the source bytes and the nodes; no
state of a walk.
"""

from __future__ import annotations

import re

from rq_engine.core.model import Kind
from rq_engine.lang import _common

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from rq_engine.lang._common import Node

# Nodes whose children are definitions in the same scope as the node itself.
TRANSPARENT = frozenset(
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
SPECIFIERS = {
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
NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type"})
INLINE = re.compile(rb"\binline\b|__inline|always_inline")
STATIC = re.compile(rb"\bstatic\b")
KEYWORDS = frozenset(
    "if for while switch return sizeof do else case goto break continue default typedef"
    " struct union enum static extern const volatile inline int char void long short"
    " unsigned signed float double".split()
)
_NOT_NAMES = frozenset(w.encode() for w in KEYWORDS)
_LAST_WORD = re.compile(rb"([A-Za-z_]\w*)\s*$")
_FIRST_ARG = re.compile(rb"\s*([A-Za-z_]\w*)\s*[,)]")
_SPACES = re.compile(r"\s+")


def scoped_name(src: bytes, node: Node) -> list[str]:
    """A (possibly qualified, possibly templated) name as its parts:
    `a::b::C<T>` -> ["a", "b", "C"]; `~Foo` -> ["~Foo"]."""
    parts: list[str] = []
    for _ in range(64):
        t = node.type
        if t == "qualified_identifier" or t == "nested_namespace_specifier":
            scope = node.child_by_field_name("scope")
            if scope is not None:
                parts.extend(scoped_name(src, scope))
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
            parts.append("~" + _common.text(src, node)[1:].strip())
        elif t == "operator_name":
            parts.append(operator_name(_common.text(src, node)))
        elif t == "operator_cast":
            ty = node.child_by_field_name("type")
            parts.append("operator " + (_SPACES.sub(" ", _common.text(src, ty)) if ty else ""))
        elif t in NAMES or t == "namespace_identifier":
            parts.append(_common.text(src, node))
        break
    return parts


def declarator(node: Node | None) -> tuple[Node | None, bool]:
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
                inner = next((c for c in node.named_children if c.type != "type_qualifier"), None)
            node = inner
        else:
            return node, fn
    return None, fn


def storage_classes(src: bytes, n: Node) -> set[str]:
    """`n`'s storage classes (`static`, `extern`)."""
    return {_common.text(src, c) for c in n.children if c.type == "storage_class_specifier"}


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


def head_name(head: bytes) -> tuple[str, int] | None:
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


def operator_name(text: str) -> str:
    """`operator ==` -> `operator==`; `operator new[]` keeps its word: `operator new[]`."""
    rest = _SPACES.sub(" ", text[len("operator") :]).strip()
    if rest[:1].isalpha():
        return "operator " + rest.replace(" [", "[")
    return "operator" + rest.replace(" ", "")
