"""text-ranker/full-scan-v1: the established profile, the default and the rollback.

A deterministic scan of every document of the lexical projection, scoring each
query term by the fields it occurs in (field weight, no IDF, no length
normalisation). Ranked by query words covered, then score, then stable ID.
Any document matching a query word is a result: no threshold, no ceiling, so
`truncated` is always false. Kept deliberately simple and frozen: it is what
bm25-v1 is compared against and what a user rolls back to.
Stdlib + rq_engine.text only.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from rq_engine.core.record import Record
from rq_engine.text import lexical
from rq_engine.text.graph import Graph
from rq_engine.text.query import Explain, FieldPart, Ranked, Ranking, TermPart, TextQuery, popcount

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.core.cancel import CancelToken


class FullScanProfile(Record):
    id: str = "text-ranker/full-scan-v1"
    weights: tuple[tuple[str, int], ...] = (("name", 3), ("qualified", 2), ("kind", 1), ("path", 1))


PROFILE = FullScanProfile()


class FullScan:
    """Per-document field term sets, scanned in full for every query."""

    def __init__(
        self, docs: Sequence[lexical.LexicalDocument], profile: FullScanProfile = PROFILE
    ) -> None:
        self.profile = profile
        an = lexical.FieldAnalyzer()
        order = [lexical.FIELDS.index(f) for f, _ in profile.weights]
        # Term tuples per field, in profile order; kind and path tuples are shared
        # between documents by the analyzer's memo.
        self.rows: list[tuple[str, tuple[tuple[str, ...], ...]]] = []
        for d in sorted(docs, key=lambda d: d.id):
            fs = an.fields(d)
            self.rows.append((d.id, tuple(fs[k] for k in order)))
        self.n_docs = len(self.rows)

    def search(
        self,
        graph: Graph,
        q: TextQuery,
        *,
        explain: bool = False,
        limit: int | None = None,
        cancel: CancelToken | None = None,
    ) -> Ranking:
        weights = [w for _, w in self.profile.weights]
        terms = [(t, q.cover[t]) for t in sorted(q.cover)]
        scored: list[tuple[int, int, str, int]] = []
        for n, (doc_id, sets) in enumerate(self.rows):
            if cancel is not None and not n & 4095:
                cancel.check()
            score = 0
            mask = 0
            for t, m in terms:
                hit = False
                for w, s in zip(weights, sets, strict=True):
                    if t in s:
                        score += w
                        hit = True
                if hit:
                    mask |= m
            if score:
                scored.append((-popcount(mask), -score, doc_id, mask))
        total = len(scored)
        if limit is not None and limit < total:
            scored = heapq.nsmallest(limit, scored)
        else:
            scored.sort()
        n_units = len(q.units)
        results = []
        for _, neg_score, doc_id, mask in scored:
            if doc_id not in graph.by_id:
                raise KeyError(f"document {doc_id!r} has no node in this realization")
            cov = popcount(mask) / n_units
            r = Ranked(doc_id, float(-neg_score), float(-neg_score), 0.0, mask, cov)
            results.append(_explained(self, graph, q, r) if explain else r)
        ranking = Ranking(self.profile.id, results, truncated=False, candidates=total, total=total)
        if not results:
            ranking.no_answer = "no node matches any query word"
        return ranking


def _explained(scan: FullScan, graph: Graph, q: TextQuery, r: Ranked) -> Ranked:
    counts = graph.by_id[r.id].document().field_counts()
    parts = []
    for t in sorted(q.cover):
        fps = tuple(
            FieldPart(f, counts[f][t], w, float(w)) for f, w in scan.profile.weights if counts[f][t]
        )
        if fps:
            parts.append(TermPart(t, 1.0, float(len(fps)), sum(p.contribution for p in fps), fps))
    return Ranked(
        r.id, r.score, r.lexical, r.structure, r.mask, r.coverage, Explain(tuple(parts), (), "")
    )
