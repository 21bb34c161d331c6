"""Twins in the text ranker: the same qualified name in a compiled or declaration
file beside its source (dist/Effect.js, Effect.d.ts, types.cjs and x.pyi beside
Effect.ts, types.ts, x.py). The derived copy ranks behind its source (bm25's
`derived`). Read from path and qualified name only, so it belongs to the lexical
projection. (The symbol pool's rule, search/rank.py, is narrower: JavaScript
beside its own declaration file.)
"""

from __future__ import annotations

import functools

from rq_engine.core.paths import JS_SUFFIXES, TS_DECLARATION_SUFFIXES, TS_SOURCE_SUFFIXES


@functools.lru_cache(maxsize=8192)
def twin_family(path: str) -> tuple[str, str, bool] | None:
    """(family, stem, is_derived) of a file that can have a source twin, else None."""
    base = path.rsplit("/", 1)[-1]
    low = base.casefold()
    for ext in TS_DECLARATION_SUFFIXES:
        if low.endswith(ext):
            return ("ts", base[: -len(ext)], True)
    for ext in TS_SOURCE_SUFFIXES:
        if low.endswith(ext):
            return ("ts", base[: -len(ext)], False)
    for ext in JS_SUFFIXES:
        if low.endswith(ext):
            return ("ts", base[: -len(ext)], True)
    if low.endswith(".pyi"):
        return ("py", base[:-4], True)
    if low.endswith(".py"):
        return ("py", base[:-3], False)
    return None


def twin_key(path: str | None, qualified: str | None) -> tuple[str, bool] | None:
    """The key a compiled or declaration twin shares with its source, and whether this
    document is the derived side; None when its file can have no twin.

    A twin is the same qualified name in a file of the same stem as a source file
    (dist/Effect.js, Effect.d.ts, types.cjs and x.pyi beside Effect.ts, types.ts,
    x.py). It is read from path and qualified name only, so it belongs to the
    lexical projection.
    """
    if path is None or qualified is None:
        return None
    fam = twin_family(path)
    if fam is None:
        return None
    return f"{fam[0]}\x00{fam[1]}\x00{qualified}", fam[2]


class Twins:
    """Derived -> source stable ID over documents added in stable-ID order (the first
    source of a key, by stable ID, is the one a twin is a copy of)."""

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}
        self.twins: list[tuple[str, str]] = []

    def add(self, doc_id: str, path: str | None, qualified: str | None) -> None:
        tk = twin_key(path, qualified)
        if tk is None:
            return
        if tk[1]:
            self.twins.append((tk[0], doc_id))
        else:
            self.sources.setdefault(tk[0], doc_id)

    def derived(self) -> dict[str, str]:
        return {i: self.sources[k] for k, i in self.twins if k in self.sources}
