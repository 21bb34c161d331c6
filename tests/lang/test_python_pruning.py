"""Python plugin: the pruned walk emits exactly what a walk of every statement emits.

The plugin skips function bodies that cannot hold a def/class and answers the
trailing-comment rule per definition (rq_engine/lang/python.py). The reference
below is the plain walk it replaced: every block and compound statement is
visited, and every visited node whose last named child is a comment records
that comment's end.

The reference is independent of the plugin: its rules (which statements hold
statements, which annotations make a constant or a type alias, what a dunder
and a private name are) are written here from the Python language reference and
the `typing` docs, not imported, so a mistake in the plugin's own tables shows.
Only the tree-sitter parse is shared.
"""

from __future__ import annotations

import random
import re
import subprocess
from typing import Any

import pytest

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import grammar
from rq_engine.lang._pyattrs import instance_attributes
from rq_engine.lang._pybodies import blank_bodies
from rq_engine.lang.python import PythonPlugin
from tests.conftest import corpus
from tests.lang.golden_tables import FIXTURES

Node = Any  # a tree-sitter node

_MODULE, _CLASS, _FUNCTION = 0, 1, 2

# Nodes whose children may be statements: the compound statements of the language
# reference (8. Compound statements: if/elif/else, try/except/except*/finally, with,
# for, while, match/case), a block, a decorated def/class, an expression statement
# (tree-sitter-python hangs assignments under it), and tree-sitter's ERROR
# recovery node, which may wrap any of them.
DESCEND = frozenset(
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
# PEP 591 `Final` and PEP 613 `TypeAlias`, bare or through the typing modules (or
# the customary `import typing as t`): `X: Final = 1` is a constant, `X: TypeAlias
# = int` a type.
ANNOTATION = re.compile(rb"(?:(?:typing|typing_extensions|t)\.)?(Final|TypeAlias)\b")


def dunder(name: str) -> bool:
    """`__x__`: a special name (language reference 2.3.2), neither private nor a constant."""
    return len(name) > 4 and name[:2] == "__" and name[-2:] == "__"


def visibility(name: str) -> Visibility:
    """PEP 8: a leading underscore marks a name internal; special names are not."""
    return Visibility.PRIVATE if name[:1] == "_" and not dunder(name) else Visibility.PUBLIC


def text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def first_line(node: Node) -> int:
    return int(node.start_point[0]) + 1


def is_main(source: bytes, node: Node) -> bool:
    """The condition is `__name__ == "__main__"` (either way round, either quote)."""
    cond = node.child_by_field_name("condition")
    if cond is None or cond.type != "comparison_operator":
        return False
    words = sorted(text(source, c).strip("'\"") for c in cond.named_children)
    return words == ["__main__", "__name__"] and b"==" in source[cond.start_byte : cond.end_byte]


def last_line(node: Node) -> int:
    """1-based inclusive: a node ending at column 0 ends with the line before."""
    row, col = node.end_point
    return int(row) if col == 0 and row > node.start_point[0] else int(row) + 1


def reference(source: bytes) -> list[Symbol]:
    tree = grammar.parse("python", source)
    found: list[tuple[int, str, Kind, Node, str | None]] = []
    trailing: set[int] = set()
    todo: list[tuple[Node, str | None, int]] = [(tree.root_node, None, _MODULE)]
    while todo:
        container, parent, scope = todo.pop()
        children = container.named_children
        if children and children[-1].type == "comment":
            trailing.add(children[-1].end_byte)
        for node in children:
            kind_name = node.type
            if kind_name in ("function_definition", "class_definition"):
                name_node = node.child_by_field_name("name")
                if name_node is None:
                    continue
                name = text(source, name_node)
                if kind_name == "class_definition":
                    kind, inner = Kind.CLASS, _CLASS
                else:
                    kind, inner = (Kind.METHOD if scope == _CLASS else Kind.FUNCTION), _FUNCTION
                found.append((node.start_byte, name, kind, node, parent))
                todo.append((node, f"{parent}.{name}" if parent else name, inner))
            elif kind_name in DESCEND:
                # `if __name__ == "__main__":` holds a script's locals
                script = scope == _MODULE and kind_name == "if_statement" and is_main(source, node)
                todo.append((node, parent, _FUNCTION if script else scope))
            elif scope == _FUNCTION:
                continue
            elif kind_name == "assignment":
                value = node
                while value is not None and value.type == "assignment":
                    value = value.child_by_field_name("right")
                unbound = value is not None and value.type == "none"  # `x = y = None`
                while node is not None and node.type == "assignment":
                    left = node.child_by_field_name("left")
                    right = node.child_by_field_name("right")
                    if left is not None and left.type == "identifier":
                        name = text(source, left)
                        ann = node.child_by_field_name("type")
                        k: Kind | None = None
                        if right is not None and right.type == "lambda":
                            k = Kind.METHOD if scope == _CLASS else Kind.FUNCTION
                        elif ann is not None and (
                            m := ANNOTATION.match(source, ann.start_byte, ann.end_byte)
                        ):
                            k = Kind.TYPE if m.group(1) == b"TypeAlias" else Kind.CONSTANT
                        elif name.isupper() and not dunder(name):
                            k = Kind.CONSTANT
                        elif scope == _MODULE and name[:1] != "_" and not unbound:
                            # (a public name: not `_private`, not a `__dunder__`)
                            k = Kind.VARIABLE  # a module's own name, bound by assignment
                        elif scope == _CLASS and name[:1] != "_":
                            k = Kind.FIELD  # a class's attribute (placeholders too)
                        if k is not None:
                            found.append((node.start_byte, name, k, node, parent))
                    node = right
            elif kind_name == "type_alias_statement":
                left = node.child_by_field_name("left")
                if left is not None:
                    name = text(source, left).split("[", 1)[0].strip()
                    found.append((node.start_byte, name, Kind.TYPE, node, parent))
    found.sort(key=lambda item: item[0])
    out = []
    for _, name, kind, node, parent in found:
        end_line = last_line(node)
        if node.end_byte in trailing and node.type in ("function_definition", "class_definition"):
            end_line = _end_line(node, trailing)
        line = first_line(node)
        out.append(Symbol(name, kind, line, end_line, parent, visibility(name), "python"))
    return out


def _end_line(node: Node, trailing: set[int]) -> int:
    while node.end_byte in trailing:
        last = node.named_child(node.named_child_count - 1)
        while last is not None and last.type == "comment":
            last = last.prev_named_sibling
        if last is None:
            return first_line(node)
        node = last
    return last_line(node)


CASES = [
    # trailing comments closing one and several blocks
    b"class A:\n    def f(self):\n        if x:\n            return 1\n            # done\n    # gap\n\nX = 1\n",
    b"def f():\n    x = 1\n    # trailing\n\n\ndef g():\n    pass  # same line\n",
    b"def f():\n    for a in b:\n        with c:\n            pass\n            # deep\n",
    # bodies with `def`/`class` only inside words, strings and comments
    b"def f(default=1):\n    undefined = defaults\n    s = 'def g(): pass'\n    # class C\n",
    b"def f():\n    meta = x.metaclass\n    return cls.__class__\n",
    # nested definitions the pruning must not skip
    b"def f():\n    if x:\n        async def g():\n            class C:\n                Y = 1\n",
    b"def outer():\n    @wrap\n    def inner():\n        pass\n        # c\n    return inner\n",
    # syntax errors: recovery hangs definitions in ERROR nodes beside a body
    b"def f(:\n    def g():\n        pass\nclass C(\n    def m(self): pass\n",
    b"def f():\n    return H = [\n    p('f', lambd\ta\xff x: F(open(__file__@d\n, 'r# c\nb'))),\n\n# x\n]\n",
    b"def f():\n    x = (\n# open\n",
    b"",
    b"#",
    b"def",
    # the oracle's own naming rules: constants, type aliases, dunders, private names
    b"X: Final = 1\nY: typing.TypeAlias = int\nz: t.Final[int] = 2\n__all__ = []\nMAX = 3\n"
    b"_HIDDEN = 4\nclass _C:\n    LIMIT = 5\n    f = lambda self: 0\n    def __init__(self): pass\n"
    b"type Pair[T] = tuple[T, T]\nN: int = 7\nfinal: Final = 8\n",
]


@pytest.mark.parametrize("source", CASES)
def test_edge_cases(source: bytes) -> None:
    check(PythonPlugin(), source)


def check(plugin: PythonPlugin, source: bytes, name: object = None) -> None:
    """The plugin's pruned walk emits what the full walk emits over the same parse
    (its bodies blanked: _pybodies); and where the file parses without an error,
    blanking changed no symbol and no line."""
    blanked = blank_bodies(source)
    assert plugin.extract(source) == with_attributes(source, reference(blanked)), name or source
    if blanked != source and not grammar.parse("python", source).root_node.has_error:
        assert reference(blanked) == reference(source), name or source


def with_attributes(source: bytes, symbols: list[Symbol]) -> list[Symbol]:
    """`symbols` with the instance attributes their methods set (`self.x = …`): read
    from the bodies by _pyattrs, not by the walk this file checks, so the same pass
    runs over the reference's methods; their spans must be the walk's for the rows to
    agree. On their own line, so in line order they sit where the plugin puts them."""
    text = re.sub(rb"\r(?!\n)", b"\n", source)
    found = [sym for _, sym in instance_attributes(text, symbols)]
    return sorted(symbols + found, key=lambda sym: sym.line)


def test_mutated_sample() -> None:
    """Seeded damage to the golden sample: deletions, stray comments, keywords, bad bytes."""
    sample = (FIXTURES / "python" / "sample.py").read_bytes()
    snippets = [b"#", b"# c\n", b"\n", b"def", b"class", b"(", b")", b":", b"\n    ", b"\xff"]
    snippets += [b"\n# x\n", b"async ", b"'''", b"\\\n", b" = lambda: 0\n", b"@d\n", b"\t"]
    rnd = random.Random(7)
    plugin = PythonPlugin()
    for _ in range(400):
        data = bytearray(sample)
        for _ in range(rnd.randint(1, 5)):
            at = rnd.randrange(len(data) + 1)
            if rnd.random() < 0.3:
                del data[at : at + rnd.randint(1, 40)]
            else:
                data[at:at] = rnd.choice(snippets)
        source = bytes(data)
        check(plugin, source)


@pytest.mark.corpus
def test_django_db_matches_full_walk() -> None:
    root = corpus("django")
    names = subprocess.run(
        ["git", "-C", str(root), "ls-files", "django/db/*.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert len(names) > 100
    plugin = PythonPlugin()
    blanked = 0
    for name in names:
        source = (root / name).read_bytes()
        check(plugin, source, name)
        blanked += blank_bodies(source) != source
    assert blanked > 100  # the blanking ran: most files have a body it can leave out
