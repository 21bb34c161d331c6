"""What the C and C++ grammars' nodes mean to the definition walk (_cfamily.py):
tables of node types, and the functions that read a name out of a node or out of
a definition head's text. Pure functions of the source bytes and the nodes; no
state of a walk.

Nodes are read by the grammar's numbers, not its names (`Ids`): a field by its id
(`child_by_field_id`: ~115 ns, `child_by_field_name`: ~250 ns, which looks the name
up on every call) and a node's type by its `kind_id` (an int, where `type` makes a
new string to hash). The two grammars number differently (C++ extends C), so each
walk reads through its grammar's `Ids`. With the walk's other shortcuts (a C struct's
fields skipped, `has_error` before a body lookup, storage classes kept as bytes), the
walk alone (trees parsed beforehand, best of 15) went from 0.42 to 0.35 s over LLVM
14's headers and from 0.82 to 0.68 s over the kernel slice.
"""

from __future__ import annotations

import re
from functools import cache

from rq_engine.core.model import Kind
from rq_engine.lang import _common, grammar

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from collections.abc import Collection

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
# Every node type the walk's block() acts on.
DISPATCHED = (
    TRANSPARENT
    | SPECIFIERS.keys()
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


# The C++ grammar's nodes that hold a name or a qualified one (scoped_name).
_QUALIFIED = frozenset({"qualified_identifier", "nested_namespace_specifier"})
_TEMPLATED = frozenset({"template_type", "template_function", "template_method"})
_ERROR = 0xFFFF  # Tree-sitter's ERROR node: a kind of its own, in no grammar's table


class Ids:
    """One grammar's numbers for what the walk reads: field ids, and kind-id sets
    (a name may stand for several ids: aliased and hidden rules)."""

    __slots__ = (
        "_kinds",
        "name",
        "body",
        "declarator",
        "type",
        "value",
        "default_value",
        "scope",
        "storage",
        "wrappers",
        "function_declarator",
        "unnamed",
        "dispatched",
    )

    def __init__(self, grammar_name: str) -> None:
        lang = grammar.language(grammar_name)
        self._kinds: dict[str, set[int]] = {}
        for i in range(lang.node_kind_count):
            self._kinds.setdefault(lang.node_kind_for_id(i), set()).add(i)

        def field(name: str) -> int:
            return lang.field_id_for_name(name) or 0  # 0: no such field, never a child

        of = self.of
        self.name = field("name")
        self.body = field("body")
        self.declarator = field("declarator")
        self.type = field("type")
        self.value = field("value")
        self.default_value = field("default_value")
        self.scope = field("scope")
        self.storage = of({"storage_class_specifier"})
        self.wrappers = of(_WRAPPERS)
        self.function_declarator = of({"function_declarator"})
        self.unnamed = of({"parenthesized_declarator"})
        self.dispatched = of(DISPATCHED)

    def of(self, types: Collection[str]) -> frozenset[int]:
        """The kind ids of the node types `types` (ERROR included)."""
        found = {i for t in types for i in self._kinds.get(t, ())}
        return frozenset(found | {_ERROR} if "ERROR" in types else found)


@cache
def ids(grammar_name: str) -> Ids:
    return Ids(grammar_name)


def scoped_name(src: bytes, node: Node, f: Ids) -> list[str]:
    """A (possibly qualified, possibly templated) name as its parts:
    `a::b::C<T>` -> ["a", "b", "C"]; `~Foo` -> ["~Foo"]. `f`: the grammar's ids."""
    parts: list[str] = []
    for _ in range(64):
        t = node.type
        if t in NAMES:  # the commonest: a plain name
            parts.append(src[node.start_byte : node.end_byte].decode("utf-8", "replace"))
            break
        if t in _QUALIFIED:
            scope = node.child_by_field_id(f.scope)
            if scope is not None:
                parts.extend(scoped_name(src, scope, f))
            nxt = node.child_by_field_id(f.name)
            if nxt is None:
                break
            node = nxt
            continue
        if t in _TEMPLATED:
            name = node.child_by_field_id(f.name)
            if name is None:
                break
            node = name
            continue
        if t == "destructor_name":
            parts.append("~" + _common.text(src, node)[1:].strip())
        elif t == "operator_name":
            parts.append(operator_name(_common.text(src, node)))
        elif t == "operator_cast":
            ty = node.child_by_field_id(f.type)
            parts.append("operator " + (_SPACES.sub(" ", _common.text(src, ty)) if ty else ""))
        elif t == "namespace_identifier":
            parts.append(_common.text(src, node))
        break
    return parts


def declarator(node: Node | None, f: Ids) -> tuple[Node | None, bool]:
    """The node naming a declarator, and whether it declares a function (not a
    pointer to one: `int (*fp)(int)` is a variable). `f`: the grammar's ids."""
    fn = False
    wrappers, function_declarator = f.wrappers, f.function_declarator
    for _ in range(64):
        if node is None:
            return None, fn
        k = node.kind_id
        if k in function_declarator:
            inner = node.child_by_field_id(f.declarator)
            fn = inner is None or inner.kind_id not in f.unnamed
            node = inner
        elif k in wrappers:
            inner = node.child_by_field_id(f.declarator)
            if inner is None:
                inner = next((c for c in node.named_children if c.type != "type_qualifier"), None)
            node = inner
        else:
            return node, fn
    return None, fn


def storage_classes(src: bytes, n: Node, f: Ids) -> set[bytes]:
    """`n`'s storage classes (`static`, `extern`), as bytes. `f`: the grammar's ids."""
    storage = f.storage
    return {src[c.start_byte : c.end_byte] for c in n.children if c.kind_id in storage}


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
