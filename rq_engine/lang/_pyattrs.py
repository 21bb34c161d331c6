"""Python instance attributes: `self.name = ...` in a method declares `Class.name`.

Most of what a Python class holds is set on `self` (`HttpRequest.META`,
`Field.null`, `Logger.level` in CPython's logging): a developer jumps to them
as to any member, and without them `Field.null` answered the class
NullBooleanField. The walk (python.py) never enters most function bodies (it
blanks them: _pybodies), so they are found here, by one literal-led pattern
over the file (`self.` first: `re` skips to each occurrence at C speed) and the
methods' spans the walk already measured:

- a statement `self.name = …`, `self.name: T = …`, `self.name: T`,
  `self.a, self.b = …` or `self.a = self.b = …` at the start of its line (not
  `+=`, not `==`, not a keyword argument, not a dict literal's `self.key: 1,`;
  a tuple holding anything but `self.` targets declares nothing, and code
  quoted in a docstring is read as code);
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

# `self.`, the name, then `=` that is no comparison, `:` (an annotation, with a
# value or without: both declare it) or `,` (a tuple). That it starts its line is
# checked per match: a leading `^` would cost the literal start its fast skip.
_ASSIGN = rb"self\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:=(?!=)|:|,)"
# `self.blank, self.null = blank, null` (Django's Field): every name of the tuple
_TUPLE = rb"self\.[A-Za-z_]\w*(?:[ \t]*,[ \t]*self\.[A-Za-z_]\w*)+[ \t]*,?[ \t]*=(?!=)"
_TUPLE_NAME = rb"self\.([A-Za-z_][A-Za-z0-9_]*)"
# `self.a = self.b = 0`: the chain after the first target
_CHAINED = rb"[ \t]*self\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)"
_CONSTRUCTOR = "__init__"


def instance_attributes(source: bytes, symbols: Sequence[Symbol]) -> list[tuple[int, Symbol]]:
    """The fields `self.name = …` declares in `symbols`' methods (see above), each
    with the byte offset of its assignment. `symbols` are the walk's, in the order
    of their lines."""
    if b"self." not in source:
        return []
    targets = _targets(source)
    if not targets:
        return []
    defs = [s for s in symbols if s.kind in (Kind.METHOD, Kind.FUNCTION)]
    taken = {(s.parent, s.name) for s in symbols}
    # (class, name) -> (not in __init__, line, byte offset): the least is the declaration
    chosen: dict[tuple[str, str], tuple[bool, int, int]] = {}
    stack: list[Symbol] = []
    i = 0
    for start, line, raw in targets:
        # open every def starting by this line, closing those that ended before it
        while i < len(defs) and defs[i].line <= line:
            _close(stack, defs[i].line)
            stack.append(defs[i])
            i += 1
        _close(stack, line)
        if not stack or raw[:1] == b"_":
            continue  # outside any def, or `self._private`
        method = stack[-1]
        if method.kind is not Kind.METHOD or method.parent is None:
            continue  # a function's `self` (nested in a method) is not its own
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


def _targets(source: bytes) -> list[tuple[int, int, bytes]]:
    """(offset, line, name) of every `self.name` a statement at the start of its
    line assigns or annotates, in source order. One pass: the line and its start are
    carried forward from match to match, and a tuple or chain is consumed whole, so
    no byte is read twice (a line of 4,000 `self.a0, …` once cost seconds)."""
    out: list[tuple[int, int, bytes]] = []
    line, counted, line_start = 1, 0, 0
    resume, seen = 0, -1
    for m in pattern(_ASSIGN).finditer(source):
        start = m.start()
        if start < resume:
            continue  # inside a tuple or chain already read
        newlines = source.count(b"\n", counted, start)
        if newlines:
            line += newlines
            line_start = source.rfind(b"\n", counted, start) + 1
        counted = start
        if seen == line_start:
            continue  # a later `self.` on a line: no statement starts there
        seen = line_start
        if start == line_start or source[line_start:start].strip(b" \t"):
            continue  # not a statement of its own line: `x = self.a == b`, `f(self.a=1)`
        end = m.end()
        last = source[end - 1]
        if last == 0x2C:  # `,`: a tuple of targets, or nothing
            t = pattern(_TUPLE).match(source, start)
            if t is not None:
                names = pattern(_TUPLE_NAME).findall(source, start, t.end())
                out += [(start, line, n) for n in names]
                resume = t.end()
            continue
        if last == 0x3A and _dict_key(source, end):  # `:`
            continue
        out.append((start, line, m.group(1)))
        while last == 0x3D and (c := pattern(_CHAINED).match(source, end)) is not None:  # `=`
            out.append((start, line, c.group(1)))
            end = resume = c.end()
    return out


def _dict_key(source: bytes, after_colon: int) -> bool:
    """`self.key: 1,` on its own line is a dict literal's entry, not an annotation:
    nothing is assigned on it and it ends with a comma."""
    stop = source.find(b"\n", after_colon)
    rest = source[after_colon : stop if stop >= 0 else len(source)].split(b"#", 1)[0].rstrip()
    return rest.endswith(b",") and b"=" not in rest


def _close(stack: list[Symbol], line: int) -> None:
    """Drop the defs that ended before `line` (spans nest: the ended are on top)."""
    while stack and stack[-1].end_line < line:
        stack.pop()
