"""The Python language plugin: classes, functions, methods, constants, type aliases, variables.

Imports tree-sitter only lazily (through _common/grammar), never at import time.

Rules (what a developer jumps to):
- `class` -> class; `def` in a class body -> method; any other `def` -> function
  (nested defs get the enclosing function as parent). Definitions under
  `if`/`try`/`with`/`for`/`match` at any level count like any other.
- Module- and class-level UPPER_CASE assignment targets (plain, chained,
  annotated) and `x: Final = ...` -> constant; `type X = ...` and
  `X: TypeAlias = ...` -> type; `f = lambda ...` -> function (method in a
  class); any other module-level name -> variable (many a public name is made
  so: Django's `reverse_lazy = lazy(reverse, str)`, `types.SimpleNamespace`,
  `threading.Lock`) — public names only (`_date_class = date` is an internal
  alias, and would outrank `dataclass` for `dtclass`; dunders are no names to
  jump to), not placeholders (`x = None`), nor a script's own lines (under `if
  __name__ == "__main__":`, where every assignment is a local). Any other
  class-level public name, assigned or only annotated, is a field (Django's
  model fields, `list_display`, `template_name = None`: in a class body `None`
  declares the attribute). A public attribute set on `self` in a method is a
  field of its class too, at its first assignment in `__init__` (else the
  first in another method): `_pyattrs`.
  Assignments inside functions are locals: skipped.
- line is the `def`/`class` line (decorators excluded); end_line is the last
  statement of the body (a trailing comment inside the block is not).
- Visibility: a leading underscore (not a dunder) is private, anything else public.

Why a statement walk and not a query: Python definitions are statements, so
only blocks and compound statements need visiting. A compiled query must step
through every expression node as well: 0.77 s of querying over Django against
0.32 s for the full statement walk (parsing: 1.6 s).

Why the walk skips most function bodies: inside a function only nested
`def`/`class` yield symbols, and an error-free body without the bytes `def` or
`class` has none (26 k of Django's 30 k functions), so it is not entered: 0.44 M
child nodes visited become 0.12 M. The trailing-comment rule, which the full
walk answered from every block it saw, is asked per definition instead
(`_closes_block`). Together with kind ids for type names and fewer node
getters, extraction beyond parsing fell from 0.33 s to 0.21 s on Django (CPython:
0.63 s -> 0.40 s), of which Symbol() itself (a frozen dataclass) is 0.04 s;
output identical on every file of both.
"""

from __future__ import annotations

import bisect
import operator
import re

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common, _pyattrs, _pybodies, _refs, grammar
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "python",
    (".py", ".pyi"),
    constructor_name="__init__",
    test_suffixes=("_test.py",),
    test_names=("test.py", "tests.py"),
    test_prefixes=(("test_", ".py"),),
)

# Nodes whose children may be statements (ERROR: Tree-sitter's recovery wrapper).
_DESCEND = frozenset(
    {
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "except_group_clause",
        "finally_clause",
        "with_statement",
        "for_statement",
        "while_statement",
        "match_statement",
        "case_clause",
        "block",
        "decorated_definition",
        "expression_statement",
        "ERROR",
    }
)
_DEFINITIONS = frozenset({"function_definition", "class_definition"})
_FINAL_OR_ALIAS = re.compile(rb"((typing|typing_extensions|t)\.)?(Final|TypeAlias)\b")
# A nested def/class starts with one of these keywords; the lexer ends a keyword
# at a non-identifier byte, so `\b` after it never misses one (bytes >= 0x80
# count as a boundary: a false alarm only costs the walk of that body).
# Two literal-prefix patterns scan 2.5x faster than `(?:def|class)\b`.
_DEF = re.compile(rb"def\b")
_CLASS_WORD = re.compile(rb"class\b")
_LONE_CR = re.compile(rb"\r(?!\n)")
_MODULE, _CLASS, _FUNCTION, _LEAF = 0, 1, 2, 3  # _LEAF: a function not worth entering


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def visibility(name: str) -> Visibility:
    if name.startswith("_") and not _dunder(name):
        return Visibility.PRIVATE
    return Visibility.PUBLIC


class _Ids:
    """Kind and field ids of the loaded grammar.

    `node.kind_id in ids` costs less than `node.type == "..."` (which builds a
    str per node): ~10% of the walk. Each set holds every id carrying the name
    (`block` has two, an alias among them; `ERROR` is 65535), so a test by id
    answers exactly as the test by name did.
    """

    def __init__(self) -> None:
        lang = grammar.language("python")
        every = [(i, lang.node_kind_for_id(i)) for i in range(lang.node_kind_count)]

        def ids(*kinds: str) -> frozenset[int]:
            found = {i for i, kind in every if kind in kinds}
            if "ERROR" in kinds:
                found.add(lang.id_for_node_kind("ERROR", True))
            return frozenset(found)

        self.descend = ids(*_DESCEND)
        self.definition = ids(*_DEFINITIONS)
        self.klass = ids("class_definition")
        self.assignment = ids("assignment")
        self.type_alias = ids("type_alias_statement")
        self.identifier = ids("identifier")
        self.lambda_ = ids("lambda")
        self.none = ids("none")
        self.if_ = ids("if_statement")
        self.condition = lang.field_id_for_name("condition")
        self.name = lang.field_id_for_name("name")
        self.body = lang.field_id_for_name("body")
        self.left = lang.field_id_for_name("left")
        self.right = lang.field_id_for_name("right")
        self.type = lang.field_id_for_name("type")


_ids: _Ids | None = None  # built on the first extract (needs the grammar)


class PythonPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.python(source)

    def extract(self, source: bytes) -> list[Symbol]:
        global _ids
        ids = _ids or (_ids := _Ids())
        definition, klass, descend = ids.definition, ids.klass, ids.descend
        if b"\r" in source:
            # A `\r` alone ends a line (old Mac files; Python reads it so too), but
            # tree-sitter counts rows at `\n` only: every symbol would sit on line 1.
            # Same length, so byte offsets are unchanged.
            source = _LONE_CR.sub(b"\n", source)
        text = source  # the bodies as written: instance attributes are read from them
        # bodies holding no definition are blanked to one `0` (_pybodies): half the
        # parse, the same symbols and lines
        source = _pybodies.blank_bodies(source)
        root = grammar.parse("python", source).root_node
        # No error anywhere (most files): a def/class node then holds nothing
        # to walk but its body, and has_error needs no asking per node.
        clean = not root.has_error
        found: list[tuple[int, Symbol]] = []  # (start byte, symbol): sorted at the end
        todo: list[tuple[Node, str | None, int]] = [(root, None, _MODULE)]
        while todo:
            container, parent, scope = todo.pop()
            for node in container.named_children:
                kind_id = node.kind_id
                if kind_id in definition:
                    name_node = node.child_by_field_id(ids.name)
                    if name_node is None:
                        continue
                    name = source[name_node.start_byte : name_node.end_byte].decode(
                        "utf-8", errors="replace"
                    )
                    # One `range` instead of four getters; end column 0 means
                    # the node ends with a newline (see _common.last_line).
                    span = node.range
                    end = span.end_byte
                    start_row = span.start_point[0]
                    end_line, end_col = span.end_point
                    # `#` on the last line: _closes_block's own first test, inline
                    if source.find(b"#", end - end_col, end) >= 0 and _closes_block(
                        source, root, end
                    ):
                        end_line = _end_line(source, root, node)
                    elif end_col != 0 or end_line == start_row:
                        end_line += 1
                    if kind_id in klass:
                        kind, inner = Kind.CLASS, _CLASS
                    else:
                        kind = Kind.METHOD if scope == _CLASS else Kind.FUNCTION
                        # Not entered without a nested def/class keyword in its
                        # text; an error subtree is entered anyway (recovery can
                        # drop or invent tokens, so the text proves nothing there).
                        after = name_node.end_byte
                        if (
                            _DEF.search(source, after, end) is None
                            and _CLASS_WORD.search(source, after, end) is None
                            and (clean or not node.has_error)
                        ):
                            inner = _LEAF
                        else:
                            inner = _FUNCTION
                    if name.startswith("_") and not _dunder(name):
                        vis = Visibility.PRIVATE
                    else:
                        vis = Visibility.PUBLIC
                    symbol = Symbol(name, kind, start_row + 1, end_line, parent, vis, "python")
                    found.append((span.start_byte, symbol))
                    if inner == _LEAF:
                        continue
                    if clean:  # name, parameters, superclasses, comments: no statement
                        node = node.child_by_field_id(ids.body)
                        if node is None:
                            continue
                    todo.append((node, f"{parent}.{name}" if parent else name, inner))
                elif kind_id in descend:
                    if scope == _MODULE and kind_id in ids.if_ and _main_guard(source, node, ids):
                        # a script's own lines: its names are locals, not the module's
                        todo.append((node, parent, _FUNCTION))
                    else:
                        todo.append((node, parent, scope))
                elif scope == _FUNCTION:
                    continue  # assignments in a function are locals
                elif kind_id in ids.assignment:
                    _assignment(source, node, parent, scope, found, ids)
                elif kind_id in ids.type_alias:
                    left = node.child_by_field_id(ids.left)
                    if left is not None:
                        name = _common.text(source, left).split("[", 1)[0].strip()
                        found.append((node.start_byte, _symbol(node, name, Kind.TYPE, parent)))
        found.sort(key=_first)
        attributes = _pyattrs.instance_attributes(text, [symbol for _, symbol in found])
        if attributes:
            found += attributes
            found.sort(key=_first)
        return [symbol for _, symbol in found]


_MAIN_GUARD = re.compile(rb"""__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__""")


def _main_guard(source: bytes, node: Node, ids: _Ids) -> bool:
    """`if __name__ == "__main__":`: what runs when the module is a script."""
    cond = node.child_by_field_id(ids.condition)
    return (
        cond is not None
        and _MAIN_GUARD.fullmatch(source, cond.start_byte, cond.end_byte) is not None
    )


def _symbol(node: Node, name: str, kind: Kind, parent: str | None) -> Symbol:
    first, last = _common.first_line(node), _common.last_line(node)
    return Symbol(name, kind, first, last, parent, visibility(name), "python")


def _assignment(
    source: bytes,
    node: Node,
    parent: str | None,
    scope: int,
    found: list[tuple[int, Symbol]],
    ids: _Ids,
) -> None:
    """A module- or class-level assignment (and the chain `A = B = 1` it heads)."""
    value = node
    while value is not None and value.kind_id in ids.assignment:
        value = value.child_by_field_id(ids.right)
    # `posix = nt = None`: a placeholder for a name bound later or elsewhere
    placeholder = value is not None and value.kind_id in ids.none
    while node is not None and node.kind_id in ids.assignment:
        left = node.child_by_field_id(ids.left)
        right = node.child_by_field_id(ids.right)
        if left is not None and left.kind_id in ids.identifier:
            name = _common.text(source, left)
            kind: Kind | None = None
            if right is not None and right.kind_id in ids.lambda_:
                kind = Kind.METHOD if scope == _CLASS else Kind.FUNCTION
            elif (ann := node.child_by_field_id(ids.type)) is not None and (
                m := _FINAL_OR_ALIAS.match(source, ann.start_byte, ann.end_byte)
            ):
                kind = Kind.TYPE if m.group(3) == b"TypeAlias" else Kind.CONSTANT
            elif name.isupper() and not _dunder(name):
                kind = Kind.CONSTANT
            elif scope == _MODULE and name[:1] != "_" and not placeholder:
                # a module's own names: `reverse_lazy = lazy(reverse, str)`,
                # `SimpleNamespace = type(sys.implementation)`, `Lock = _allocate_lock`
                kind = Kind.VARIABLE
            elif scope == _CLASS and name[:1] != "_":
                # a class's attributes: Django's model fields (`title = CharField()`),
                # options (`list_display = ()`, `template_name = None`), dataclass
                # fields (`x: int = 0`)
                kind = Kind.FIELD
            if kind is not None:
                found.append((node.start_byte, _symbol(node, name, kind, parent)))
        node = right


_first = operator.itemgetter(0)
_start_byte = operator.attrgetter("start_byte")


def _closes_block(source: bytes, root: Node, end: int) -> bool:
    """Whether a comment ending at `end` is the last named child of a walked node.

    Tree-sitter puts a comment written after a body's last statement inside the
    block, and every enclosing block ends there too; such a definition's
    end_line must skip it. The full walk collected these comments from every
    node it visited; the pruned walk sees too few, so ask about one byte: a
    comment is `#` to the end of its line, so a `#`-free last line answers at
    once (all but 0.4% of Django's definitions). Otherwise descend from the
    root as the full walk would, through the walked node holding byte end - 1.
    """
    if source.find(b"#", source.rfind(b"\n", 0, end) + 1, end) < 0:
        return False
    node = root
    while True:
        children = node.named_children
        if not children:
            return False
        last = children[-1]
        if last.type == "comment" and last.end_byte == end:
            return True
        # siblings do not overlap: the one holding end - 1 is the last to start by then
        i = bisect.bisect_right(children, end - 1, key=_start_byte)
        if i == 0:
            return False
        node = children[i - 1]
        kind = node.type
        walked = kind in _DESCEND or (
            kind in _DEFINITIONS and node.child_by_field_name("name") is not None
        )
        if not walked or node.end_byte < end:
            return False


def _end_line(source: bytes, root: Node, node: Node) -> int:
    """Last line of `node` not counting comments that close its block(s).

    Descend through the last named children until a node that does not end in
    such a comment.
    """
    while _closes_block(source, root, node.end_byte):
        last = node.named_child(node.named_child_count - 1)
        while last is not None and last.type == "comment":
            last = last.prev_named_sibling
        if last is None:
            return _common.first_line(node)
        node = last
    return _common.last_line(node)
