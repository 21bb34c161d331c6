"""text-ranker/bm25-v1: BM25 over the lexical projection, postings keyed by stable ID.

This module is the scoring: the profile, the weigher, `rank` over any `Postings`.
The postings themselves are text/memory.py's (built in the process) or
text/cache's (persisted); twins (a compiled copy beside its source) are
text/twins.py's.

The formula is Okapi BM25 over weighted field frequencies (the simple BM25F
form): a document's term frequency is sum(field weight x count in field), its
length sum(field weight x field length in words, compounds and kind aliases
not counted), so with integer weights it is plain BM25 over the document with
each field repeated `weight` times and that length (the reference test checks
this against rank_bm25). IDF and average length come from
exact integer totals. Postings hold stable IDs, never positions: an index is
bound to a lexical-projection identity and resolves IDs through the graph it is
asked with. Stdlib + rq_engine.text only.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence

from rq_engine.core.record import Record
from rq_engine.text import lexical
from rq_engine.text.query import (
    Explain,
    FieldPart,
    Ranked,
    Ranking,
    StructurePart,
    TermPart,
    TextQuery,
)
from rq_engine.text.rerank import Adjusted, QueryShape, RerankProfile, UnitWeights, adjust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from rq_engine.core.cancel import CancelToken
    from rq_engine.text.rerank import GraphView, Key


class Bm25Profile(Record):
    """The versioned profile: every number that changes a ranking is here, under one id."""

    id: str = "text-ranker/bm25-v1"
    k1: float = 1.2
    b: float = 0.75
    # name 3, qualified 2: a name word counts 5 (it is in both), a container word 2,
    # a path or kind word 1. Integers keep the "repeat the field" equivalence exact.
    weights: tuple[tuple[str, int], ...] = (("name", 3), ("qualified", 2), ("kind", 1), ("path", 1))
    # Candidate ceiling: at most this many documents are scored per query. 20,000
    # keeps the accumulate + sort of one query under ~20 ms in CPython while no
    # judged query over the nine corpora (up to ~240k nodes) reaches it.
    ceiling: int = 20_000
    # An answer must account for this share of the query's information (IDF-weighted
    # units, its own or its children's); below it the query has no good answer.
    min_coverage: float = 0.75
    # Structural rerank: a node earns this fraction of a unit's IDF for each query
    # unit it lacks but one of its direct children has; only the top `rerank_depth`
    # lexical candidates are looked at (for `exact` too).
    structure_weight: float = 0.25
    rerank_depth: int = 1000
    # exact: a name spelled by a run of the typed words, or a trailing part of the
    # qualified name spelled by all non-kind words, earns this x the units' IDF.
    exact_weight: float = 0.5
    # A compound joined across typed words (`deep copy` -> `deepcopy`) is another
    # spelling of words the query already has: it scores at a quarter, so a node
    # whose name also holds the separate words is not paid twice for them, while
    # a name that only has the joined spelling (`deepcopy`) still scores and covers.
    joined_weight: float = 0.25
    # Navigation priors (multipliers): a compiled or declaration twin of a source
    # definition (dist/x.js, x.d.ts, x.pyi next to x.ts / x.py); test code; a node
    # of another kind than the query names (`method has many` -> not the class).
    derived_prior: float = 0.5
    test_prior: float = 0.8
    kind_prior: float = 0.75

    def rerank(self) -> RerankProfile:
        return RerankProfile(
            self.structure_weight,
            self.exact_weight,
            self.derived_prior,
            self.test_prior,
            self.kind_prior,
            self.rerank_depth,
        )


PROFILE = Bm25Profile()


class Weigher:
    """A document's weighted term frequencies and length under a profile: the one
    definition both the in-memory index and the persisted cache build from.

    tf(term) = sum over fields of weight x count; length = sum of weight x field
    length. Kind and path terms are shared by many documents: their part is
    computed once per distinct (kind, path) and copied (a C-level dict copy).
    """

    def __init__(self, profile: Bm25Profile = PROFILE) -> None:
        self.wn, self.wq, self.wk, self.wp = (
            dict(profile.weights).get(f, 0) for f in lexical.FIELDS
        )
        self.an = lexical.FieldAnalyzer()
        self._shared: dict[tuple[str | None, str | None], tuple[dict[str, int], int]] = {}

    def __call__(self, d: lexical.LexicalDocument) -> tuple[dict[str, int], int, str, str]:
        """(tf by term, length, compact name, compact qualified name)."""
        an, wn, wq = self.an, self.wn, self.wq
        name_t, qual_t, name_n, qual_n, cn, cq = an.own(d)
        base = self._shared.get((d.kind, d.path))
        if base is None:
            _, _, kind_t, path_t = an.fields(d)
            _, _, kind_n, path_n = an.lengths(d)
            btf: dict[str, int] = {}
            for t in kind_t:
                btf[t] = btf.get(t, 0) + self.wk
            for t in path_t:
                btf[t] = btf.get(t, 0) + self.wp
            base = (btf, self.wk * kind_n + self.wp * path_n)
            self._shared[(d.kind, d.path)] = base
        tf = dict(base[0])
        for t in name_t:
            tf[t] = tf.get(t, 0) + wn
        for t in qual_t:
            tf[t] = tf.get(t, 0) + wq
        return tf, base[1] + wn * name_n + wq * qual_n, cn, cq


def norm_k(profile: Bm25Profile, dl: int, avgdl: float) -> float:
    """K of a document: k1 * (1 - b + b * dl / avgdl) (k1 alone over an empty corpus)."""
    return profile.k1 * (1.0 - profile.b + profile.b * dl / avgdl) if avgdl else profile.k1


def saturation(profile: Bm25Profile, tf: float, k: float) -> float:
    """A term's saturated frequency in a document whose norm is `k` (norm_k):
    tf * (k1 + 1) / (tf + K). The postings' loops (here and text/cache/reader.py)
    inline it with k1 + 1 hoisted, in this operation order: the same floats."""
    return tf * (profile.k1 + 1.0) / (tf + k)


if TYPE_CHECKING:

    class Postings(Protocol):
        """What `rank` reads of a bm25-v1 index: in memory (text/memory.py's Bm25Index) or a persisted,
        identity-bound cache generation (rq_engine/text/cache). Keys are `Key`s."""

        profile: Bm25Profile
        n_docs: int
        avgdl: float

        @property
        def length(self) -> Mapping[Key, int]: ...

        @property
        def derived(self) -> Mapping[Key, str]: ...

        def has(self, term: str) -> bool: ...

        def df(self, term: str) -> int: ...

        def idf(self, term: str) -> float: ...

        def pids(self, term: str) -> Sequence[Key]: ...

        def saturated(self, term: str) -> Sequence[float]: ...

        def best(self, term: str) -> Key: ...

        def impact_order(self, term: str) -> Sequence[Key]: ...

        def exact(self, compact: str) -> set[Key]: ...


def rank(
    ix: Postings,
    graph: GraphView,
    q: TextQuery,
    *,
    explain: bool = False,
    limit: int | None = None,
    cancel: CancelToken | None = None,
) -> Ranking:
    """Rank, accept, and keep the best `limit` (all when None); `total` counts all accepted.
    `cancel` is checked before each term's postings (Cancelled: a later query came)."""
    prof = ix.profile
    # Rarest terms first: they admit the fewest, most telling candidates; a
    # term that would push the candidate set past the ceiling only re-scores
    # what is already admitted (plus the protected documents).
    terms = sorted((t for t in q.cover if ix.has(t)), key=lambda t: (ix.df(t), t))
    exact = ix.exact(q.compact)
    acc: dict[str, float] = {}
    mask: dict[str, int] = {}
    truncated = False
    qw = query_weights(q, prof.joined_weight)
    weight_of = UnitWeights([ix.idf(u) for u in q.units])
    total_idf = weight_of.total
    need = prof.min_coverage * total_idf - 1e-9
    # Units still reachable from term k on (this term and every commoner one):
    # a document first met at term k can cover at most these.
    reach = [0] * (len(terms) + 1)
    for k in range(len(terms) - 1, -1, -1):
        reach[k] = reach[k + 1] | q.cover[terms[k]]
    for k, t in enumerate(terms):
        if cancel is not None:
            cancel.check()
        pids = ix.pids(t)
        sat = ix.saturated(t)
        w = ix.idf(t) * qw[t]
        m = q.cover[t]
        if len(acc) + len(pids) <= prof.ceiling:
            for i, s in zip(pids, sat, strict=True):
                acc[i] = acc.get(i, 0.0) + w * s
                mask[i] = mask.get(i, 0) | m
            continue
        # Over the ceiling: admit this term's strongest new documents (highest
        # saturated tf, then stable ID) into the room left, plus the protected
        # ones; everything already admitted is still re-scored.
        room = prof.ceiling - len(acc)
        admit = exact | {ix.best(t)}
        if weight_of(reach[k]) < need:
            # No document first met here can be accepted on its own words, so
            # refusing them cuts nothing: re-score, admit only the protected.
            pass
        elif room > 0:
            for i in ix.impact_order(t):
                if i not in acc and i not in admit:
                    if room == 0:
                        truncated = True
                        break
                    admit.add(i)
                    room -= 1
        elif any(i not in acc and i not in admit for i in pids):
            truncated = True
        for i, s in zip(pids, sat, strict=True):
            if i in acc or i in admit:
                acc[i] = acc.get(i, 0.0) + w * s
                mask[i] = mask.get(i, 0) | m
    adjusted = adjust(
        graph, QueryShape(q), prof.rerank(), acc, mask, weight_of, need, ix.derived, explain
    )
    accepted: list[tuple[float, str, int]] = []
    for i, adj in adjusted.items():
        covered = mask[i] | adj.gained
        if weight_of(covered) < need:
            continue
        accepted.append((-adj.score, i, covered))
    if limit is not None and limit < len(accepted):
        shown = heapq.nsmallest(limit, accepted)  # (−score, stable ID): IDs are unique
    else:
        shown = sorted(accepted)
    results = [
        Ranked(i, -neg, acc[i], adjusted[i].structure, cov, weight_of(cov) / total_idf)
        for neg, i, cov in shown
    ]
    ranking = Ranking(
        prof.id, results, truncated=truncated, candidates=len(acc), total=len(accepted)
    )
    if not results:
        best = max((weight_of(mask[i]) / total_idf for i in acc), default=0.0)
        ranking.no_answer = (
            f"no node accounts for {prof.min_coverage:.0%} of the query (best covers {best:.0%})"
        )
    if explain:
        ranking.results = [_with_explain(ix, graph, q, r, adjusted[r.id]) for r in results]
    return ranking


def impact_of(pids: Sequence[Key], sat: Sequence[float]) -> list[Key]:
    """Postings by saturated tf, strongest first, then key (stable-ID order)."""
    return [i for _, i in sorted(zip(sat, pids, strict=True), key=lambda x: (-x[0], x[1]))]


def best_of(pids: Sequence[Key], sat: Sequence[float]) -> Key:
    """Highest saturated tf, first key (stable-ID order) on a tie."""
    top = max(sat)
    return min(i for i, s in zip(pids, sat, strict=True) if s == top)


def query_weights(q: TextQuery, joined: float) -> dict[str, float]:
    """Per scoring term: 1, or `joined` for a compound spanning several typed words."""
    words = [m for _, m in q.words]
    return {t: 1.0 if any(m & ~wm == 0 for wm in words) else joined for t, m in q.cover.items()}


def _with_explain(
    index: Postings,
    graph: GraphView,
    q: TextQuery,
    r: Ranked,
    adj: Adjusted,
) -> Ranked:
    prof = index.profile
    node = graph.by_id[r.id]
    counts = node.document().field_counts()
    k = norm_k(prof, index.length[r.id], index.avgdl)
    parts: list[TermPart] = []
    for t in sorted(q.cover, key=lambda t: (index.df(t), t)):
        fields = [(f, counts[f][t], w) for f, w in prof.weights if counts[f][t]]
        if not fields:
            continue
        tf = float(sum(c * w for _, c, w in fields))
        idf = index.idf(t)
        contrib = idf * saturation(prof, tf, k)
        parts.append(
            TermPart(
                t,
                idf,
                tf,
                contrib,
                tuple(FieldPart(f, c, w, contrib * c * w / tf) for f, c, w in fields),
            )
        )
    structure = tuple(
        StructurePart(c, tuple(q.units_of(m)), prof.structure_weight * _idf_sum(index, q, m))
        for c, m in adj.kids
    )
    norm = f"length {index.length[r.id]} vs average {index.avgdl:.2f}"
    return Ranked(
        r.id,
        r.score,
        r.lexical,
        r.structure,
        r.mask,
        r.coverage,
        Explain(tuple(parts), structure, norm, tuple(adj.features)),
    )


def _idf_sum(index: Postings, q: TextQuery, m: int) -> float:
    return math.fsum(index.idf(u) for u in q.units_of(m))
