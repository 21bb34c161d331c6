"""The text query service: pin one realization, pick the profile's ranker, return one answer.

Faces (CLI, MCP) call `TextService.query` and render the `TextAnswer`; they
never re-rank. A service keeps the rankers it built, keyed by profile and
lexical-projection identity, so a new realization with the same projection
(an edge-only change) reuses the postings while the structural rerank reads
the new graph. Imports the store only inside `open_live`; never a face.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_engine.text import bm25, fullscan
from rq_engine.text.graph import Edge, Graph, Node, load
from rq_engine.text.query import Ranking, TextQuery

FULL_SCAN = fullscan.PROFILE.id
BM25 = bm25.PROFILE.id
PROFILES = (FULL_SCAN, BM25)
DEFAULT = FULL_SCAN


class Ranker(Protocol):
    n_docs: int

    def search(
        self, graph: Graph, q: TextQuery, *, explain: bool = False, limit: int | None = None
    ) -> Ranking: ...


@dataclass(frozen=True, slots=True)
class Realization:
    """A pinned graph and where its paths live on disk (repository identity -> checkout root)."""

    graph: Graph
    roots: dict[str, Path]
    warming: tuple[str, ...] = ()  # repositories whose index is not complete yet
    source: str = "index"  # "index" or the graph.json path


@dataclass(slots=True)
class TextAnswer:
    ranking: Ranking
    realization: Realization
    limit: int | None
    hits: list[tuple[Node, list[Node]]] = field(default_factory=list)  # node, chain

    @property
    def profile(self) -> str:
        return self.ranking.profile


def open_graph_file(path: Path, cwd: Path) -> Realization:
    g = load(path)
    roots: dict[str, Path] = {}
    from rq_engine.core.identity import checkout_for

    co = checkout_for(cwd)
    if co.identity == g.repository:
        roots[g.repository] = co.root
    return Realization(g, roots, (), str(path))


def open_live(cwd: Path, all_repos: bool = False) -> Realization:
    """Realize the cwd's repository (or every indexed one) from the index, read-only."""
    from rq_engine.store import db
    from rq_engine.text import source

    conn = db.connect(readonly=True)
    try:
        repos = source.all_repositories(conn) if all_repos else [source.repository_of(conn, cwd)]
        if not repos:
            raise RqError("the index holds no repository (run rq --index)", ExitCode.IOERR)
        graphs = [source.realize(conn, r) for r in repos]
        roots: dict[str, Path] = {}
        warming: list[str] = []
        for r in repos:
            for (root,) in conn.execute(
                "SELECT c.root_path FROM checkouts c JOIN repositories r ON r.id = c.repository_id"
                " WHERE r.identity = ? ORDER BY c.id",
                (r,),
            ):
                if os.path.isdir(root):
                    roots[r] = Path(root)
                    break
            st = conn.execute(
                "SELECT status FROM coverage c JOIN repositories r ON r.id = c.repository_id"
                " WHERE r.identity = ? AND c.scope = 'full'",
                (r,),
            ).fetchone()
            if st is not None and st[0] != "complete":
                warming.append(r)
    finally:
        conn.close()
    g = graphs[0] if len(graphs) == 1 else merge(graphs)
    return Realization(g, roots, tuple(warming), "index")


def merge(graphs: list[Graph]) -> Graph:
    """Several repositories as one realization (IDs carry the identity, so they never clash)."""
    nodes: list[Node] = [n for g in graphs for n in g.nodes]
    edges: list[Edge] = [e for g in graphs for e in g.edges]
    return Graph("*", nodes, edges)


def build_ranker(profile: str, graph: Graph) -> Ranker:
    docs = graph.documents()
    if profile == BM25:
        return bm25.Bm25Index(docs)
    if profile == FULL_SCAN:
        return fullscan.FullScan(docs)
    raise UsageError(f"unknown ranker {profile!r} (one of {', '.join(PROFILES)})")


class TextService:
    """Rankers by (profile, lexical identity); at most `keep` live at once (LRU)."""

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._rankers: OrderedDict[tuple[str, str], Ranker] = OrderedDict()
        self.built = 0  # how many rankers this service has built (tests read it)

    def ranker(self, profile: str, graph: Graph) -> Ranker:
        if profile not in PROFILES:
            raise UsageError(f"unknown ranker {profile!r} (one of {', '.join(PROFILES)})")
        if not self.keep:
            # One-shot callers (the CLI) never pay for hashing the projection.
            self.built += 1
            return build_ranker(profile, graph)
        key = (profile, graph.lexical_identity)
        r = self._rankers.get(key)
        if r is None:
            r = build_ranker(profile, graph)
            self.built += 1
            self._rankers[key] = r
            while len(self._rankers) > self.keep:
                self._rankers.popitem(last=False)
        else:
            self._rankers.move_to_end(key)
        return r

    def query(
        self,
        real: Realization,
        text: str,
        profile: str | None = None,
        limit: int | None = 20,
        explain: bool = False,
    ) -> TextAnswer:
        q = TextQuery.parse(text)
        prof = profile or DEFAULT
        ranking = self.ranker(prof, real.graph).search(real.graph, q, explain=explain, limit=limit)
        shown = ranking.results
        hits = [(real.graph.by_id[r.id], real.graph.chain(r.id)) for r in shown]
        return TextAnswer(ranking, real, limit, hits)
