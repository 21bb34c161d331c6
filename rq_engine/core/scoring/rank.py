"""Ranking one query's pool: every candidate scored, the D14 near-miss rule, and the
order faces show.

`rank(pool, query, context)` is a plain function of its arguments. The search
layer fills the pool (search/layers.py: which rows, how each name matched) and
the context (what the index says about the pool: JavaScript compiled from a
TypeScript twin, the files declaring the scope; each row's boosts), and reads the
ranked entries back. Stdlib only.
"""

from __future__ import annotations

from rq_engine.core.columns import ADDED, added_names
from rq_engine.core.query import Query
from rq_engine.core.record import Record
from rq_engine.core.score import Score
from rq_engine.core.scoring import IN_ORDER, Boosts, Candidate, NameMatch, Scored, score
from rq_engine.core.scoring.features import (
    compiled_copy_feature,
    qualifier_feature,
    referenced_feature,
    reopened_feature,
    scope_file_feature,
    scope_unmatched_feature,
)

TYPE_CHECKING = False  # (typing and collections stay off the `rq -q` path)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


class Row(Record):
    """One stored definition, as search/retrieval decodes it from the symbols/files join
    (its ROW_COLUMNS, in this order): what a pool holds and ranking reads."""

    __slots__ = (
        "id",
        "name",
        "kind",
        "visibility",
        "parent",
        "line",
        "end_line",
        "language",
        "path",
        "repository_id",
        "file_id",
        "touched",
        *added_names(),  # the facts core/columns.py declares since m001, read last
    )

    id: int
    name: str
    kind: str
    visibility: str
    parent: str | None
    line: int
    end_line: int | None
    language: str
    path: str
    repository_id: int
    file_id: int
    touched: int  # unix seconds of the later of mtime and last commit; 0: unknown

    def __init__(
        self,
        id: int,
        name: str,
        kind: str,
        visibility: str,
        parent: str | None,
        line: int,
        end_line: int | None,
        language: str,
        path: str,
        repository_id: int,
        file_id: int,
        touched: int = 0,
        *added: object,
    ) -> None:
        self.id = id
        self.name = name
        self.kind = kind
        self.visibility = visibility
        self.parent = parent
        self.line = line
        self.end_line = end_line
        self.language = language
        self.path = path
        self.repository_id = repository_id
        self.file_id = file_id
        self.touched = touched
        if ADDED:  # (an empty tuple's test: a row costs nothing until a fact is declared)
            for c, v in zip(ADDED, added or [c.default for c in ADDED], strict=True):
                setattr(self, c.name, v)


class PoolEntry:
    """One definition in a query's candidate pool: its row, how its name matched, the
    layer that found it and parts decided outside the scorer (constructor, fallback)."""

    __slots__ = ("row", "match", "layer", "extra")

    def __init__(
        self, row: Row, match: NameMatch, layer: str, extra: list[tuple[str, float]] | None = None
    ) -> None:
        self.row = row
        self.match = match
        self.layer = layer
        self.extra = [] if extra is None else extra


class RankContext(Record):
    """What ranking a pool needs beside the pool and the query, decided by the search
    layer once per query (`compiled` grows as batches bring new paths)."""

    __slots__ = (
        "current_repo",
        "scope_files",
        "constructor",
        "compiled",
        "projects",
        "boosts",
        "references",
    )
    current_repo: int | None  # the repository searched from
    scope_files: set[int]  # files declaring the scope's last name (`scope_file`)
    constructor: bool  # the query is `Scope.new`-like: a constructor answers only its own class
    compiled: dict[str, bool]  # path -> JavaScript with a TypeScript declaration beside it
    projects: dict[int, str]  # repository id -> the project's short name (`path_project`)
    boosts: Callable[[Row], Boosts]  # the context signals of one row (search/rank.py)
    # (files naming the row by its qualifier, the most any row of its name has): the
    # canonical prior; None: not known
    references: Callable[[Row], tuple[int, int]] | None

    def __init__(
        self,
        *,
        current_repo: int | None,
        scope_files: set[int],
        constructor: bool,
        compiled: dict[str, bool],
        projects: dict[int, str],
        boosts: Callable[[Row], Boosts],
        references: Callable[[Row], tuple[int, int]] | None = None,
    ) -> None:
        self.current_repo = current_repo
        self.scope_files = scope_files
        self.constructor = constructor
        self.compiled = compiled
        self.projects = projects
        self.boosts = boosts
        self.references = references


class Ranker:
    """`rank` with a memo: batches re-rank a growing pool, and a row's score in one mode
    (strict or not) does not change between them (~5 µs a row scored)."""

    def __init__(self, query: Query, context: RankContext) -> None:
        self.query = query
        self.context = context
        self._memo: dict[tuple[int, bool], tuple[PoolEntry, Scored | None]] = {}

    def rank(self, pool: Iterable[PoolEntry], *, strict: bool) -> tuple[list[Ranked], bool]:
        """Every entry that answers the query, best first; and whether one is an exact
        match in the current repository (the confidence gate's "strong")."""
        entries = list(pool)
        best_evidence = max(
            (e.match.evidence for e in entries if e.match.kind in IN_ORDER), default=0
        )
        scored: list[Ranked] = []
        strong = False
        for e in entries:
            sc = self.score(e, strict)
            if sc is None:
                continue
            if e.match.kind == "typo" and e.match.evidence < best_evidence:
                continue  # D14: a near miss joins only on at least the in-order evidence
            if e.match.kind == "exact" and e.row.repository_id == self.context.current_repo:
                strong = True
            scored.append((sc, e))
        return settled(scored), strong

    def forget(self, rows: Iterable[int]) -> None:
        """Drop these rows' memoized scores: the context changed what they score (a copy
        of their name named more often arrived with a later batch)."""
        for row_id in rows:
            self._memo.pop((row_id, True), None)
            self._memo.pop((row_id, False), None)

    def literal_count(self, pool: Iterable[PoolEntry]) -> int:
        """Exact/prefix entries that answer the query (scope included)."""
        return sum(
            1
            for e in pool
            if e.match.kind in ("exact", "prefix") and self.score(e, True) is not None
        )

    def score(self, e: PoolEntry, strict: bool) -> Scored | None:
        """The entry's score, None when its qualifier rules it out (memoized)."""
        key = (e.row.id, strict)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        qual = qualifier(e, self.query, self.context, strict)
        sc = None
        if qual is not None:
            sc = score_entry(e, self.query, self.context, qual)
        self._memo[key] = (e, sc)
        return sc


Ranked = tuple[Scored, PoolEntry]


def qualifier(
    e: PoolEntry, q: Query, ctx: RankContext, strict: bool
) -> list[tuple[str, float]] | None:
    """The scope's parts for one entry (None: the scope rules it out). Not strict: a
    scope within two edits answers too."""
    if not q.scope:
        return []
    r = e.row
    qual = qualifier_feature(q.scope, r.parent, r.path, typo=False)
    if qual is None and not strict:
        qual = qualifier_feature(q.scope, r.parent, r.path, typo=True)
    if ctx.constructor:
        # a constructor answers only for its own class: the chain itself (or
        # its typo), never a neighbour in the same file or package
        if qual is None or qual[0][0] not in ("scope", "scope_typo"):
            return None
        return qual
    in_file = r.file_id in ctx.scope_files and r.name.lower() != q.scope[-1].lower()
    if in_file:
        # the scope is declared in this file: evidence on its own (an inherited
        # member of a base class beside it) and on top of a parent match
        qual = [*(qual or []), *scope_file_feature()]
    return qual


def score_entry(
    e: PoolEntry,
    q: Query,
    ctx: RankContext,
    qual: list[tuple[str, float]],
    more: list[tuple[str, float]] | None = None,
) -> Scored | None:
    """`score` of one entry with the parts decided outside the scorer: the entry's own
    extras, the compiled-copy penalty, `more`, and the row's boosts."""
    r = e.row
    extra = e.extra  # (shared, never mutated: most rows add nothing to it)
    if ctx.compiled.get(r.path):
        extra = [*extra, *compiled_copy_feature(True)]
    if more:
        extra = [*extra, *more]
    if ctx.references is not None and not q.scope:
        # the prior orders the copies of a name; a scoped query names its own qualifier
        files, best = ctx.references(r)
        if best > files:
            extra = [*extra, *referenced_feature(files, best)]
    return score(
        q,
        candidate(r, ctx.projects.get(r.repository_id, "")),
        match=e.match,
        qualifier=qual,
        extra=extra,
        boosts=ctx.boosts(r),
    )


def fallback(pool: Iterable[PoolEntry], q: Query, ctx: RankContext) -> list[Ranked]:
    """Nothing answered the scope: every entry on its leaf alone, `scope_unmatched`."""
    scored = []
    for e in pool:
        sc = score_entry(e, q, ctx, [], scope_unmatched_feature())
        if sc is not None:
            scored.append((sc, e))
    return settled(scored)


def rank_entries(
    entries: Iterable[PoolEntry],
    q: Query,
    ctx: RankContext,
    qual: list[tuple[str, float]] | None,
) -> list[Ranked]:
    """Entries a retry found (constructor owner, wildcard), each with `qual`."""
    scored = []
    for e in entries:
        sc = score_entry(e, q, ctx, qual or [])
        if sc is not None:
            scored.append((sc, e))
    return settled(scored)


def settled(scored: list[Ranked]) -> list[Ranked]:
    """Best first (`ordered`), each module or namespace at its best copy: every later
    copy of it (same repository, name and parent) takes `reopened` and falls behind
    the distinct definitions of its band. Decided on the ranked list, so the copy
    shown first is the one the features prefer (`action_controller.rb`, named like
    the module), and a query's first answer never changes."""
    out = ordered(scored)
    seen: set[tuple[int, str, str | None]] = set()
    fell = False
    for i, (sc, e) in enumerate(out):
        r = e.row
        if r.kind != "module":
            continue
        key = (r.repository_id, r.name, r.parent)
        if key not in seen:
            seen.add(key)
            continue
        out[i] = (Scored(Score.of([*sc.score.parts, *reopened_feature()]), sc.match), e)
        fell = True
    return ordered(out) if fell else out


def ordered(scored: list[Ranked]) -> list[Ranked]:
    """Best first. Ties break on what the user sees: the longer definition (of two
    same-named classes, the substantial one: java.util.Map.Entry over KeyStore.Entry),
    then path, line and the definition itself; never on row ids alone, which depend on
    the order files were indexed in."""
    return sorted(
        scored,
        key=lambda t: (
            -t[0].score.total,
            t[1].row.line - (t[1].row.end_line or t[1].row.line),
            t[1].row.path,
            t[1].row.line,
            t[1].row.name,
            t[1].row.kind,
            t[1].row.parent or "",
            t[1].row.id,
        ),
    )


def candidate(r: Row, project: str = "") -> Candidate:
    """What the scorer may look at of a stored row."""
    return Candidate(
        project=project,
        name=r.name,
        kind=r.kind,
        visibility=r.visibility,
        parent=r.parent,
        path=r.path,
        language=r.language,
        **{n: getattr(r, n) for n in _ADDED_NAMES},
    )


_ADDED_NAMES = added_names()


__all__ = [
    "PoolEntry",
    "Row",
    "RankContext",
    "Ranked",
    "Ranker",
    "candidate",
    "fallback",
    "ordered",
    "qualifier",
    "rank_entries",
    "score_entry",
]
