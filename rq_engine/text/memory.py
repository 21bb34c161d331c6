"""The in-memory BM25 postings: one `bm25.Postings` built from a lexical projection
in the process (the text ranker's path with no persisted cache, and the
reference the cache is tested against). The persisted, identity-bound kind is
text/cache's `Generation`; both are scored by `bm25.rank`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from rq_engine.text import lexical
from rq_engine.text.bm25 import PROFILE, Bm25Profile, Weigher, best_of, impact_of, norm_k, rank
from rq_engine.text.query import bm25_idf
from rq_engine.text.twins import Twins

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.core.cancel import CancelToken
    from rq_engine.text.graph import Graph
    from rq_engine.text.query import Ranking, TextQuery


class Bm25Index:
    """Postings term -> (stable IDs, precomputed saturated tf) over one lexical projection."""

    def __init__(self, docs: Sequence[lexical.LexicalDocument], profile: Bm25Profile = PROFILE):
        self.profile = profile
        weigh = Weigher(profile)
        ids: list[str] = []
        lengths: list[int] = []
        raw: dict[str, tuple[list[str], array[int]]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_qualified: dict[str, list[str]] = {}
        twins = Twins()
        prev: str | None = None
        for d in sorted(docs, key=lambda d: d.id):
            if d.id == prev:
                raise lexical.DuplicateDocument(f"duplicate stable ID {d.id!r}")
            prev = d.id
            twins.add(d.id, d.path, d.qualified)
            tf, length, cn, cq = weigh(d)
            ids.append(d.id)
            lengths.append(length)
            for t, c in tf.items():
                p = raw.get(t)
                if p is None:
                    raw[t] = ([d.id], array("q", (c,)))
                else:
                    p[0].append(d.id)
                    p[1].append(c)
            if cn:
                self.by_name.setdefault(cn, []).append(d.id)
            if cq:
                self.by_qualified.setdefault(cq, []).append(d.id)
        self.derived: dict[str, str] = twins.derived()
        self.n_docs = len(ids)
        self.total_length = sum(lengths)
        self.avgdl = self.total_length / self.n_docs if self.n_docs else 0.0
        self.length: dict[str, int] = dict(zip(ids, lengths, strict=True))
        avgdl = self.avgdl
        self.norm_k: dict[str, float] = {
            i: norm_k(profile, dl, avgdl) for i, dl in self.length.items()
        }
        self.postings: dict[str, tuple[list[str], array[int]]] = raw
        # Per term, computed on first use and kept: the saturated tf*(k1+1)/(tf+K)
        # of every posting (a warm query is then one multiply-add a posting), and
        # the term's best candidate. Lazy, because one query reads a handful of the
        # ~10^5 terms and precomputing all of them doubled the build.
        self._sat: dict[str, array[float]] = {}
        self._best: dict[str, str] = {}
        self._impact: dict[str, list[str]] = {}

    def saturated(self, term: str) -> array[float]:
        sat = self._sat.get(term)
        if sat is None:
            pids, tfs = self.postings[term]
            k1p = self.profile.k1 + 1.0
            nk = self.norm_k
            sat = array("d", [c * k1p / (c + nk[i]) for i, c in zip(pids, tfs, strict=True)])
            self._sat[term] = sat
        return sat

    def impact_order(self, term: str) -> list[str]:
        """The term's postings by saturated tf, strongest first, then stable ID; computed
        on the first query that overflows the ceiling with it, and kept."""
        order = self._impact.get(term)
        if order is None:
            order = impact_of(self.postings[term][0], self.saturated(term))
            self._impact[term] = order
        return order

    def best(self, term: str) -> str:
        """The term's best candidate: highest saturated tf, first stable ID on a tie."""
        b = self._best.get(term)
        if b is None:
            b = best_of(self.postings[term][0], self.saturated(term))
            self._best[term] = b
        return b

    def df(self, term: str) -> int:
        p = self.postings.get(term)
        return len(p[0]) if p else 0

    def idf(self, term: str) -> float:
        return bm25_idf(self.n_docs, self.df(term))

    # --- scoring -----------------------------------------------------------------------

    def score_terms(self, terms: Sequence[str]) -> dict[str, float]:
        """Plain BM25 of every document for distinct `terms` (no ceiling): the reference path."""
        out: dict[str, float] = {}
        for t in dict.fromkeys(terms):
            p = self.postings.get(t)
            if not p:
                continue
            w = self.idf(t)
            for i, s in zip(p[0], self.saturated(t), strict=True):
                out[i] = out.get(i, 0.0) + w * s
        return out

    def has(self, term: str) -> bool:
        return term in self.postings

    def pids(self, term: str) -> Sequence[str]:
        return self.postings[term][0]

    def exact(self, compact: str) -> set[str]:
        """Documents whose compact name or qualified name is `compact` (always admitted)."""
        return set(self.by_name.get(compact, ())) | set(self.by_qualified.get(compact, ()))

    def search(
        self,
        graph: Graph,
        q: TextQuery,
        *,
        explain: bool = False,
        limit: int | None = None,
        cancel: CancelToken | None = None,
    ) -> Ranking:
        return rank(self, graph, q, explain=explain, limit=limit, cancel=cancel)
