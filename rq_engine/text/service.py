"""The text query service: pin one realization, pick the profile's ranker, return one answer.

Faces (CLI, MCP) call `TextService.query` and render the `TextAnswer`; they
never re-rank. A service keeps the rankers it built, keyed by profile and
lexical-projection identity, so a new realization with the same projection
(an edge-only change) reuses the postings while the structural rerank reads
the new graph. Imports the store only inside `open_live`; never a face.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

from rq_engine.core.defaults import TEXT_LIMIT
from rq_engine.core.errors import NOTHING_INDEXED, ExitCode, RqError, UsageError
from rq_engine.core.record import Record, field
from rq_engine.text import bm25, memory
from rq_engine.text.graph import Edge, Graph, Node
from rq_engine.text.query import Ranking, TextQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from rq_engine.core.cancel import CancelToken

FULL_SCAN = "text-ranker/full-scan-v1"  # fullscan.PROFILE.id (imported when used)
BM25 = bm25.PROFILE.id
PROFILES = (FULL_SCAN, BM25)
DEFAULT = BM25  # the cutover (docs/DECISIONS.md D39); --ranker text-ranker/full-scan-v1 rolls back


if TYPE_CHECKING:

    class Ranker(Protocol):
        n_docs: int

        def search(
            self,
            graph: Graph,
            q: TextQuery,
            *,
            explain: bool = False,
            limit: int | None = None,
            cancel: CancelToken | None = None,
        ) -> Ranking: ...

    class GraphFacts(Protocol):
        """What a face reads of an answer's realization: its repository and its nodes."""

        @property
        def repository(self) -> str: ...

        @property
        def by_id(self) -> Mapping[str, Node]: ...


class PinnedView(Record):
    """The nodes of a cached answer (results, their containers, explained children),
    read from the pinned generation."""

    repository: str
    by_id: Mapping[str, Node]


class CacheState(Record):
    """How a bm25-v1 answer was served (rq_engine/text/cache/manager.py's ladder)."""

    state: str  # hit | delta | edge | rebuilt | memory | off
    note: str = ""
    generation: str = ""
    ms: float = 0.0  # what choosing (and building) the state took


class Realization(Record):
    """A pinned graph and where its paths live on disk (repository identity -> checkout root)."""

    graph: Graph | GraphFacts
    roots: dict[str, Path]
    warming: tuple[str, ...] = ()  # repositories whose index is not complete yet
    source: str = "index"  # "index" or the graph.json path
    # One repository's `text_seq` read before it was ranked (None: not known): a later
    # one means the index changed since, so a miss made from this is out of date.
    seq: int | None = None

    @property
    def full(self) -> Graph:
        """The whole realized graph (an answer served from the cache pins only a view)."""
        assert isinstance(self.graph, Graph), "a cached answer has no whole graph"
        return self.graph


class TextAnswer(Record):
    ranking: Ranking
    realization: Realization
    limit: int | None
    hits: list[tuple[Node, list[Node]]] = field(default_factory=list)  # node, chain
    cache: CacheState = CacheState("off")

    @property
    def profile(self) -> str:
        return self.ranking.profile


def open_graph_file(path: Path, cwd: Path) -> Realization:
    from rq_engine.text.graphjson import load

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
    from rq_engine.store.paths import index_db_file
    from rq_engine.text import source

    if all_repos and not os.path.exists(index_db_file()):
        raise RqError(NOTHING_INDEXED, ExitCode.WARMING)  # (no index yet: nothing held)
    conn = db.connect(readonly=True)
    try:
        repos = source.all_repositories(conn) if all_repos else [source.repository_of(conn, cwd)]
        if not repos:
            # nothing indexed yet is "no match yet" (2), as for `rq -q --all-repos`;
            # the store itself is fine
            raise RqError(NOTHING_INDEXED, ExitCode.WARMING)
        seq = None if all_repos else text_seq(conn, repos[0])
        graphs = [source.realize(conn, r) for r in repos]
        roots, warming = _whereabouts(conn, repos)
    finally:
        conn.close()
    g = graphs[0] if len(graphs) == 1 else merge(graphs)
    return Realization(g, roots, warming, "index", seq)


def text_seq(conn: sqlite3.Connection, identity: str) -> int | None:
    """The repository's `text_seq`: the index writes a new one in the same transaction as
    every change to its symbols (store/writes.py), so an equal one names the same rows."""
    row = conn.execute(
        "SELECT text_seq FROM repositories WHERE identity = ?", (identity,)
    ).fetchone()
    return int(row[0]) if row is not None else None


def _whereabouts(
    conn: sqlite3.Connection, repos: list[str]
) -> tuple[dict[str, Path], tuple[str, ...]]:
    """Each repository's checkout root on disk, and which are still warming."""
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
    return roots, tuple(warming)


def _never() -> None:
    """A check that never cancels (no token given)."""


def query_live(
    cwd: Path,
    text: str,
    profile: str | None = None,
    limit: int | None = TEXT_LIMIT,
    explain: bool = False,
    all_repos: bool = False,
    cancel: CancelToken | None = None,
) -> TextAnswer:
    """A text query over the cwd's repository as the index holds it now.

    `cancel` (the picker's next keystroke, an MCP client giving a call up) is checked
    before each step and before each term's postings: Cancelled, never a stale answer.

    bm25-v1 over one repository goes through the persisted cache (an exact hit
    reads a few postings and rows, never the whole graph); every other case
    realizes the graph (open_live) and ranks it in memory."""
    prof = profile or DEFAULT
    if prof not in PROFILES:
        raise UsageError(f"unknown ranker {prof!r} (one of {', '.join(PROFILES)})")
    check = cancel.check if cancel is not None else _never
    check()
    if prof != BM25 or all_repos:
        real = open_live(cwd, all_repos)
        check()
        return TextService(keep=0).query(real, text, prof, limit, explain, cancel=cancel)
    from rq_engine.store import db
    from rq_engine.text import source
    from rq_engine.text.cache import manager
    from rq_engine.text.cache.manifest import BadGeneration

    q = TextQuery.parse(text)
    conn = db.connect(readonly=True)
    try:
        identity = source.repository_of(conn, cwd)
        seq = text_seq(conn, identity)  # (before the answer is made: it is that new or newer)
        roots, warming = _whereabouts(conn, [identity])
        t0 = time.perf_counter()
        served = manager.serve(conn, identity)
        took = (time.perf_counter() - t0) * 1000
        if cancel is not None and cancel.cancelled:
            if served.gen is not None:
                served.gen.close()
            if served.pending:  # (the build a cancelled query found due still starts)
                manager.build_detached(identity)
            check()
        damaged = ""
        while served.gen is not None:
            gen = served.gen
            try:
                ranking = gen.rank(q, explain=explain, limit=limit, cancel=cancel)
                hits = [gen.hit(r.id) for r in ranking.results]
                break
            except (BadGeneration, sqlite3.DatabaseError) as e:
                # a row failed its checksum, or SQLite found the file damaged: that
                # generation is never asked again
                damaged = f"the cached generation was damaged ({e}); "
                served = manager.discard(conn, identity, served)
            finally:
                gen.close()
    finally:
        conn.close()
    state = CacheState(served.state, damaged + served.note, served.generation, took)
    if served.pending:  # a full build, or one that folds an overlay into a new base
        manager.build_detached(identity)
    if served.gen is None:
        assert served.graph is not None
        real = Realization(served.graph, roots, warming, "index", seq)
        answer = TextService(keep=0).query(real, text, prof, limit, explain, cancel=cancel)
        answer.cache = state
        return answer
    view = PinnedView(identity, {n.id: n for n in gen.by_id.values()})
    for _, chain in hits:
        for n in chain:
            view.by_id[n.id] = n  # type: ignore[index]
    real = Realization(view, roots, warming, "index", seq)
    return TextAnswer(ranking, real, limit, hits, state)


def merge(graphs: list[Graph]) -> Graph:
    """Several repositories as one realization (IDs carry the identity, so they never clash)."""
    nodes: list[Node] = [n for g in graphs for n in g.nodes]
    edges: list[Edge] = [e for g in graphs for e in g.edges]
    return Graph("*", nodes, edges)


def build_ranker(profile: str, graph: Graph) -> Ranker:
    docs = graph.documents()
    if profile == BM25:
        return memory.Bm25Index(docs)
    if profile == FULL_SCAN:
        from rq_engine.text import fullscan

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
        limit: int | None = TEXT_LIMIT,
        explain: bool = False,
        *,
        cancel: CancelToken | None = None,
    ) -> TextAnswer:
        q = TextQuery.parse(text)
        prof = profile or DEFAULT
        g = real.full
        ranker = self.ranker(prof, g)
        if cancel is not None:
            cancel.check()
        ranking = ranker.search(g, q, explain=explain, limit=limit, cancel=cancel)
        shown = ranking.results
        hits = [(g.by_id[r.id], g.chain(r.id)) for r in shown]
        return TextAnswer(ranking, real, limit, hits)
