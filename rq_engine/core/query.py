"""Query parsing: case, word joiners, scope chains, and whether a query looks like a path.

Pure and stdlib-only (it runs on every keystroke of the picker and on the
`rq -q` hot path). Knows no language: `::`, `#` and `.` are all scope separators.
"""

from __future__ import annotations

import re

from rq_engine.core.record import Record

#: the word joiners a query may leave out (or add) and still match exactly (D19)
JOINERS = "_-."
_JOINER_TABLE = str.maketrans("", "", JOINERS)
# `::` first so `Foo::Bar` is one separator, not two empty scopes.
_SCOPE_SPLIT = re.compile(r"::|#|\.")
# File extensions that make a dotted query a file name, not `Scope.member`.
PATH_EXTENSIONS = frozenset(
    ".py .pyi .rb .rake .go .rs .ts .tsx .mts .cts .js .jsx .mjs .cjs .c .h .cc .cpp .hpp"
    " .java .kt .swift .scm .md .toml .json .yaml .yml".split()
)


def fold(text: str) -> str:
    """Lower-case and drop the joiners `_ - .`: the key a separator-free query matches."""
    return text.lower().translate(_JOINER_TABLE)


class Query(Record):
    """A parsed query. `leaf` is what the candidate's own name must match.

    `scope` is the chain before the leaf (`Foo::Bar#baz` → ("Foo", "Bar")), empty
    when unscoped. `raw` keeps the text as typed, for the `.`-as-wildcard retry
    and the path layer.
    """

    __slots__ = (
        "raw",
        "leaf",
        "scope",
        "dotted",
        "looks_like_path",
        "leaf_lower",
        "leaf_fold",
        "has_upper",
        "has_joiners",
    )
    raw: str
    leaf: str
    scope: tuple[str, ...]
    dotted: bool  # a `.` separated scope from the leaf (wildcard retry applies)
    looks_like_path: bool
    # derived once here: the scorer reads them for every candidate
    leaf_lower: str
    leaf_fold: str
    has_upper: bool  # any uppercase makes the `case` feature apply
    has_joiners: bool

    def __init__(
        self,
        raw: str,
        leaf: str,
        scope: tuple[str, ...] = (),
        dotted: bool = False,
        looks_like_path: bool = False,
    ) -> None:
        self.raw = raw
        self.leaf = leaf
        self.scope = scope
        self.dotted = dotted
        self.looks_like_path = looks_like_path
        self.leaf_lower = leaf.lower()
        self.leaf_fold = fold(leaf)
        self.has_upper = any(ch.isupper() for ch in leaf)
        self.has_joiners = any(ch in JOINERS for ch in leaf)

    def unscoped(self) -> Query:
        """The whole raw text as one leaf (the wildcard retry's view of `a.b`)."""
        return Query(raw=self.raw, leaf=self.raw, looks_like_path=self.looks_like_path)


def looks_like_path(text: str) -> bool:
    """A `/`, or a trailing known file extension (`models.py`, `server.go`)."""
    if "/" in text or "\\" in text:
        return True
    dot = text.rfind(".")
    return dot > 0 and text[dot:] in PATH_EXTENSIONS  # `a.b.C` is a scope chain


def parse(text: str) -> Query:
    """Parse what the user typed. Never raises; an empty query has an empty leaf.

    Whitespace at the ends is dropped; inner whitespace is kept in the leaf (no
    symbol has it, so such a query simply matches nothing in the symbol layers).
    """
    raw = text.strip()
    if not raw:
        return Query(raw="", leaf="")
    if looks_like_path(raw):
        return Query(raw=raw, leaf=raw, looks_like_path=True)
    parts = _SCOPE_SPLIT.split(raw)
    seps = _SCOPE_SPLIT.findall(raw)
    # Leading separators (`.foo`, `::Foo` = root scope) and trailing ones (`Foo::`)
    # carry no scope: drop the empty pieces instead of matching empty names.
    pieces = [(p, seps[i - 1] if i else "") for i, p in enumerate(parts)]
    pieces = [(p, s) for p, s in pieces if p]
    if not pieces:
        return Query(raw=raw, leaf=raw)
    if len(pieces) == 1:
        return Query(raw=raw, leaf=pieces[0][0])
    leaf, leaf_sep = pieces[-1]
    scope = tuple(p for p, _ in pieces[:-1])
    return Query(raw=raw, leaf=leaf, scope=scope, dotted=leaf_sep == "." or "." in raw)
