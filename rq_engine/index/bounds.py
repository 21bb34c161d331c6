"""What one definition may put in the index: its name and qualified parent, capped and counted. Stdlib only.

A plugin names each definition's parent by the whole chain of scopes above it,
so nesting costs the square of its depth: 6,900 nested `mod a { … }` (a 69 KB
Rust file) made a 73 MiB index, took 164 MiB to write and 310 MiB for
`rq --text`, whose stable IDs then outgrew the graph's bound (2,048
characters) and failed the whole repository (74). Here a parent keeps its
innermost MAX_PARENT_DEPTH scopes within MAX_PARENT_CHARS, after a `…` that
marks the cut (`…::a::a`), and a name keeps its first MAX_NAME_CHARS: that file
now makes a 1.3 MiB index and `rq --text` answers in 34 MiB. The 472k
definitions of the nine benchmark corpora (and rustc's, Linux's) stay as they
were: the longest parent there is 121 characters and 6 scopes deep (Django's
nested test classes), the longest name 242 characters (a Go reflect test's type).
"""

from __future__ import annotations

from collections.abc import Sequence

from rq_engine.core.columns import SymbolRow as Row  # index/parse.py's rows

MAX_NAME_CHARS = 512
MAX_PARENT_CHARS = 512
MAX_PARENT_DEPTH = 32  # scopes, counting the `…` that stands for the ones cut
CUT = "…"  # U+2026: the start of a parent (or the end of a name) that was cut


def bound_parent(parent: str, sep: str) -> str:
    """`parent` cut to its innermost scopes (`…` first) when it is too deep or too long."""
    if len(parent) <= MAX_PARENT_CHARS and parent.count(sep) < MAX_PARENT_DEPTH:
        return parent
    segs = parent.split(sep)
    kept: list[str] = []
    room = MAX_PARENT_CHARS - len(CUT)
    for seg in reversed(segs):
        if len(kept) == MAX_PARENT_DEPTH - 1 or len(seg) + len(sep) > room:
            break
        kept.append(seg)
        room -= len(seg) + len(sep)
    if not kept:  # one scope longer than the bound: keep its end
        return CUT + segs[-1][-(MAX_PARENT_CHARS - len(CUT)) :]
    return CUT + sep + sep.join(reversed(kept))


def bound_name(name: str) -> str:
    if len(name) <= MAX_NAME_CHARS:
        return name
    return name[: MAX_NAME_CHARS - len(CUT)] + CUT


def _over(name: str, parent: str | None, sep: str) -> bool:
    return len(name) > MAX_NAME_CHARS or (
        parent is not None
        and (len(parent) > MAX_PARENT_CHARS or parent.count(sep) >= MAX_PARENT_DEPTH)
    )


def bound_rows(rows: Sequence[Row], sep: str) -> tuple[tuple[Row, ...], int]:
    """Rows `(name, kind, visibility, line, end_line, parent, ...)` with names and
    parents in bounds, and how many rows were cut (0: `rows` unchanged)."""
    if not any(_over(r[0], r[5], sep) for r in rows):
        return tuple(rows), 0
    out: list[Row] = []
    cut = 0
    for r in rows:
        name, parent = r[0], r[5]
        if _over(name, parent, sep):
            cut += 1
            name = bound_name(name)
            parent = None if parent is None else bound_parent(parent, sep)
            r = (name, *r[1:5], parent, *r[6:])
        out.append(r)
    return tuple(out), cut
