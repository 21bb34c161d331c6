"""Python instance attributes: `self.name = ...` in a method declares `Class.name`.

Most of what a Python class holds is set on `self` (`HttpRequest.META`,
`Field.null`, `Thread.daemon` in CPython's threading): a developer jumps to them
as to any member, and without them `Field.null` answered the class
NullBooleanField. The walk (python.py) never enters most function bodies (it
blanks them: _pybodies), so they are found here, by one literal-led pattern
over the file (`self.` first: `re` skips to each occurrence at C speed) and the
methods' spans the walk already measured:

- a statement `self.name = …`, `self.name: T = …`, `self.name: T` or
  `self.a, self.b = …` at the start of its line (not `+=`, not `==`, not a
  keyword argument);
- in a method of a class (the innermost `def` holding the line; a nested
  function's `self` is not its own, so it is skipped, as is a staticmethod's
  lack of one: no `self` to assign);
- the declaration is the first assignment in `__init__`, else the first in the
  class's other methods (a test's `setUp`, a lazily set cache);
- public names only, as for class-level attributes: `self._cache` is the
  class's own business, and private helpers' names would crowd the public ones;
- a name the class body itself defines (a method, a property, a class-level
  attribute) is that definition, not a second one.

Stdlib only; knows the walk's symbols, not tree-sitter.
"""

from __future__ import annotations

from collections.abc import Sequence

from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang.grammar import pattern

# `self.`, the name, then `=` that is no comparison or `:` (an annotation, with a
# value or without: both declare it). That it starts its line is checked per
# match: a leading `^` would cost the literal start its fast skip.
_ASSIGN = rb"self\.([A-Za-z][A-Za-z0-9_]*)[ \t]*(?:=(?!=)|:|,)"
# `self.blank, self.null = blank, null` (Django's Field): every name of the tuple
_TUPLE = rb"self\.[A-Za-z_]\w*(?:[ \t]*,[ \t]*self\.[A-Za-z_]\w*)+[ \t]*,?[ \t]*=(?!=)"
_TUPLE_NAME = rb"self\.([A-Za-z][A-Za-z0-9_]*)"
_CONSTRUCTOR = "__init__"


def instance_attributes(source: bytes, symbols: Sequence[Symbol]) -> list[tuple[int, Symbol]]:
    """The fields `self.name = …` declares in `symbols`' methods (see above), each
    with the byte offset of its assignment. `symbols` are the walk's, in the order
    of their lines."""
    if b"self." not in source:
        return []
    matches: list[tuple[int, bytes]] = []
    for m in pattern(_ASSIGN).finditer(source):
        if source[m.end() - 1] != 0x2C:  # `,`
            matches.append((m.start(), m.group(1)))
        elif t := pattern(_TUPLE).match(source, m.start()):
            names = pattern(_TUPLE_NAME).findall(source, m.start(), t.end())
            matches += [(m.start(), n) for n in names]
    if not matches:
        return []
    defs = [s for s in symbols if s.kind in (Kind.METHOD, Kind.FUNCTION)]
    taken = {(s.parent, s.name) for s in symbols}
    # (class, name) -> (not in __init__, line, byte offset): the least is the declaration
    chosen: dict[tuple[str, str], tuple[bool, int, int]] = {}
    stack: list[Symbol] = []
    i = 0
    line, counted = 1, 0
    for start, raw in matches:
        line += source.count(b"\n", counted, start)
        counted = start
        head = source[source.rfind(b"\n", 0, start) + 1 : start]
        if not head or head.strip(b" \t"):
            continue  # not a statement of its own line: `x = self.a == b`, `f(self.a=1)`
        # open every def starting by this line, closing those that ended before it
        while i < len(defs) and defs[i].line <= line:
            _close(stack, defs[i].line)
            stack.append(defs[i])
            i += 1
        _close(stack, line)
        if not stack:
            continue
        method = stack[-1]
        if method.kind is not Kind.METHOD or method.parent is None or method.line == line:
            continue
        name = raw.decode("ascii")
        key = (method.parent, name)
        if key in taken:
            continue
        rank = (method.name != _CONSTRUCTOR, line, start)
        if key not in chosen or rank < chosen[key]:
            chosen[key] = rank
    return [
        (start, Symbol(name, Kind.FIELD, line, line, parent, Visibility.PUBLIC, "python"))
        for (parent, name), (_, line, start) in chosen.items()
    ]


def _close(stack: list[Symbol], line: int) -> None:
    """Drop the defs that ended before `line` (spans nest: the ended are on top)."""
    while stack and stack[-1].end_line < line:
        stack.pop()
