"""The cache manager: which ranker state answers a bm25-v1 query, chosen deterministically.

The ladder, first that applies:
  hit       the current generation is bound to the index's state of the repository now;
  delta     a valid prior generation of the same index and repository, the change log
            still covers its base, and at most MAX_DELTA_PATHS paths changed since the
            base: write the exact overlay of those paths over the base, publish it
            (`edge` when the lexical projection is the prior generation's);
  rebuilt   realize the graph and build a generation in full, publish it;
  memory    the cache cannot be written or read (read-only or full disk, another
            builder holds the lock, a limit): the in-memory bm25-v1 index over the
            realized graph — the same answer, without persistence.
A generation that fails validation is never queried: it is rebuilt (or, failing
that, the answer comes from memory), and the state says why. Stdlib + rq_engine
text and store only; never a face.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rq_engine.core.record import Record
from rq_engine.text import bm25, lexical
from rq_engine.text.cache import schema, store
from rq_engine.text.cache.manifest import (
    FORMAT_MAJOR,
    BadGeneration,
    Limits,
    Manifest,
    graph_token,
)
from rq_engine.text.cache.reader import Generation, open_generation

# An exact hit imports only the above; building reads the index's rows and writes a
# generation, and imports what that needs when it happens.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.text.graph import Graph

MAX_DELTA_PATHS = 5_000


class Served(Record):
    state: str  # hit | delta | edge | rebuilt | memory
    note: str
    gen: Generation | None = None
    graph: Graph | None = None  # the realized graph, when the answer comes from memory
    generation: str = ""  # the published file's name
    pending: bool = False  # a full build is due: hand it to a detached builder


class _Defer(Exception):
    """A full build is due and is not to be done in this process."""


class _Token(Record):
    store: str
    rid: int
    seq: int
    floor: int

    @property
    def graph(self) -> str:
        return graph_token(self.store, self.rid, self.seq)


def _token(conn: sqlite3.Connection, identity: str) -> _Token | None:
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('store_uuid', 'text_changes_floor')"
        )
    )
    row = conn.execute(
        "SELECT id, text_seq FROM repositories WHERE identity = ?", (identity,)
    ).fetchone()
    if row is None or "store_uuid" not in meta:
        return None
    return _Token(
        meta["store_uuid"], int(row[0]), int(row[1]), int(meta.get("text_changes_floor", 0))
    )


def serve(
    conn: sqlite3.Connection,
    identity: str,
    profile: bm25.Bm25Profile = bm25.PROFILE,
    limits: Limits | None = None,
    *,
    detach: bool | None = None,
    compact: bool = False,
) -> Served:
    """The pinned ranker state for one repository's current index (see the ladder).

    A full build takes seconds on a large repository (Go std: ~260k documents), far
    more than ranking in memory: with `detach` (the default; RQ_TEXT_CACHE_DETACH=0
    turns it off) a query that needs one answers from memory and says `pending`, and
    its caller hands the build to a detached `python -m rq_engine.text.cache`. A
    delta is applied here: an overlay costs about what the changed files hold. An
    overlay past compact_at() rows is served, and a full build that folds it into a
    new base is made pending; `compact` (the detached builder's) builds in full
    unless a base is already bound to now."""
    import os

    limits = limits or Limits()
    if detach is None:
        detach = os.environ.get("RQ_TEXT_CACHE_DETACH", "1") != "0"
    tok = _token(conn, identity)
    if tok is None:
        return _memory(conn, identity, "the index predates the text cache")
    d = store.directory(tok.store, tok.rid)
    why = ""
    prior: _Prior | None = None
    cur = store.current(d)
    if cur is not None:
        try:
            gen = open_generation(cur, profile)
        except BadGeneration as e:
            why = f"the cached generation was unusable ({e}); "
        else:
            m, base = gen.manifest, gen.base_manifest
            usable = m.analyzer == lexical.ANALYZER_ID and m.repository == identity
            if usable and m.graph == tok.graph and not (compact and m.build != "full"):
                s = Served("hit", "", gen, generation=cur.name)
                s.pending = detach and gen.overlay_rows >= compact_at()
                return s
            same = m.graph.startswith(f"rq-index:{tok.store}:{tok.rid}:")
            if usable and same and not compact and base.seq >= tok.floor and m.seq <= tok.seq:
                prior = _Prior(gen, cur.name if m.build == "full" else str(m.parent))
            else:
                gen.close()
    if prior is None:
        # Before anything is realized: a repository past the document limit is never
        # built (a build holds every document in memory first: ~3 KB each).
        (n,) = conn.execute(
            "SELECT count(*) FROM symbols WHERE repository_id = ?", (tok.rid,)
        ).fetchone()
        if n > limits.docs:
            return _memory(
                conn,
                identity,
                f"{why}{n:,} documents: past the cache's limit of {limits.docs:,}",
            )
    try:
        with store.writer(d):
            store.cleanup(d)
            return _build(conn, identity, d, prior, profile, limits, why, full=not detach)
    except _Defer as e:
        s = _memory(conn, identity, f"{e}the cache is being built in the background")
        s.pending = True
        return s
    except store.Busy:
        return _memory(conn, identity, why + "another rq is building this cache")
    except (OSError, sqlite3.Error, BadGeneration) as e:
        return _memory(conn, identity, f"{why}the cache could not be written ({e})")
    finally:
        if prior is not None:
            prior.gen.close()


def compact_at() -> int:
    """Overlay rows past which a full build folds them into a new base: every query on
    an overlay reads its keys (RQ_TEXT_CACHE_COMPACT_AT, default 5,000)."""
    import os

    try:
        return max(1, int(os.environ.get("RQ_TEXT_CACHE_COMPACT_AT", "5000")))
    except ValueError:
        return 5000


class _Prior(Record):
    gen: Generation  # the current generation (a base, or an overlay over one)
    base: str  # its base's file name


def _build(
    conn: sqlite3.Connection,
    identity: str,
    d: Path,
    prior: _Prior | None,
    profile: bm25.Bm25Profile,
    limits: Limits,
    why: str,
    *,
    full: bool,
) -> Served:
    from rq_engine.text import source
    from rq_engine.text.cache.delta import NeedFull
    from rq_engine.text.graph import Graph

    conn.execute("BEGIN")  # one snapshot: the token, the change log and the rows agree
    try:
        tok = _token(conn, identity)
        assert tok is not None
        if prior is not None and full and prior.gen.overlay_rows >= compact_at():
            why += f"the overlay holds {prior.gen.overlay_rows:,} rows; "
        elif prior is not None:
            # every path changed since the base: an overlay is rewritten, never stacked
            paths = [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT path FROM text_changes WHERE repository_id = ? AND seq > ?",
                    (tok.rid, prior.gen.base_manifest.seq),
                )
            ]
            if len(paths) <= MAX_DELTA_PATHS:
                nodes, edges = source.realize_files(conn, identity, tok.rid, paths, snapshot=False)
                part = Graph(identity, nodes, edges)
                try:
                    return _delta(d, prior, part, paths, tok, profile, limits, pend=not full)
                except (NeedFull, BadGeneration) as e:
                    why += f"the delta could not be applied ({e}); "
            else:
                why += f"{len(paths):,} files changed; "
        if not full:
            raise _Defer(why)
        graph = source.realize(conn, identity, snapshot=False)
    finally:
        conn.execute("COMMIT")
    return _full(d, graph, tok, profile, limits, why)


def _stage(d: Path) -> tuple[Path, sqlite3.Connection]:
    tmp = store.temporary(d)
    return tmp, sqlite3.connect(tmp, isolation_level=None)


def _finish(
    d: Path,
    tmp: Path,
    wconn: sqlite3.Connection,
    m: Manifest,
    profile: bm25.Bm25Profile,
    base: Generation | None = None,
) -> tuple[Generation, str]:
    """Validate, mark complete, publish, reopen read-only."""
    from rq_engine.text.cache.build import CacheLimit, verify_stats, write_manifest
    from rq_engine.text.cache.delta import merged_stats

    write_manifest(wconn, m)
    if base is None:
        verify_stats(wconn, m)
    elif merged_stats(base.conn, wconn) != (m.docs, m.total_length, m.terms, m.postings, m.lexical):
        raise BadGeneration("the overlay's statistics do not recompute over its base")
    wconn.execute("COMMIT")
    store.phase("staged")
    wconn.execute("BEGIN")
    write_manifest(wconn, m.complete())
    wconn.execute("COMMIT")
    wconn.close()
    store.phase("complete")
    if tmp.stat().st_size > m.limits.bytes:
        raise CacheLimit(f"{tmp.stat().st_size:,} bytes (limit {m.limits.bytes:,})")
    final = store.publish(d, tmp, m.seq, overlay=base is not None)
    return open_generation(final, profile), final.name


def _manifest(
    identity: str, tok: _Token, stats: tuple[int, int, int, int, str], profile: bm25.Bm25Profile,
    limits: Limits, build: str, base: _Prior | None = None,
) -> Manifest:  # fmt: skip
    n, total, nt, npost, lex = stats
    return Manifest(
        format=FORMAT_MAJOR, analyzer=lexical.ANALYZER_ID, profile=profile.id, repository=identity,
        graph=tok.graph, seq=tok.seq, lexical=lex, docs=n, total_length=total, terms=nt,
        postings=npost, limits=limits, build=build, state="building",
        parent=base.base if base else None,
        base=base.gen.base_manifest.checksum() if base else None,
    )  # fmt: skip


def _full(
    d: Path, graph: Graph, tok: _Token, profile: bm25.Bm25Profile, limits: Limits, why: str
) -> Served:
    from rq_engine.text.cache.build import build_full, create, facts

    tmp, wconn = _stage(d)
    try:
        create(wconn)
        wconn.execute("BEGIN")
        stats = build_full(wconn, facts(graph), profile, limits)
        m = _manifest(graph.repository, tok, stats, profile, limits, "full")
        gen, name = _finish(d, tmp, wconn, m, profile)
    except BaseException:
        wconn.close()
        tmp.unlink(missing_ok=True)
        raise
    return Served("rebuilt", why.rstrip("; "), gen, graph, generation=name)


def _delta(
    d: Path,
    prior: _Prior,
    part: Graph,
    paths: list[str],
    tok: _Token,
    profile: bm25.Bm25Profile,
    limits: Limits,
    *,
    pend: bool,
) -> Served:
    from rq_engine.text.cache.build import create, facts
    from rq_engine.text.cache.delta import apply

    tmp, wconn = _stage(d)
    try:
        create(wconn)
        wconn.execute("BEGIN")
        _, stats = apply(prior.gen.conn, wconn, paths, facts(part), profile, limits)
        # edge: the same lexical projection as the generation it follows — every
        # posting is the same, only graph facts moved
        build = "edge" if stats[4] == prior.gen.manifest.lexical else "delta"
        m = _manifest(part.repository, tok, stats, profile, limits, build, prior)
        m.keys = schema.key_seal(
            [int(r[0]) for r in wconn.execute("SELECT doc FROM gone ORDER BY doc")],
            [int(r[0]) for r in wconn.execute("SELECT doc FROM docs ORDER BY doc")],
        )
        gen, name = _finish(d, tmp, wconn, m, profile, prior.gen)
    except BaseException:
        wconn.close()
        tmp.unlink(missing_ok=True)
        raise
    s = Served(build, "", gen, generation=name)
    s.pending = pend and gen.overlay_rows >= compact_at()
    return s


def discard(conn: sqlite3.Connection, identity: str, bad: Served) -> Served:
    """A served generation failed a row checksum: unpublish it (when `current` still
    names it) and serve again, which rebuilds or answers from memory."""
    tok = _token(conn, identity)
    if tok is not None and bad.generation:
        d = store.directory(tok.store, tok.rid)
        try:
            with store.writer(d):
                cur = store.current(d)
                if cur is not None and cur.name == bad.generation:
                    base = store.base_of(cur)  # (which file failed is not known: both go)
                    (d / "current").unlink()
                    cur.unlink()
                    if base is not None:
                        (d / base).unlink(missing_ok=True)
        except (store.Busy, OSError):
            pass  # (another builder is replacing it right now)
    again = serve(conn, identity)
    if again.gen is not None and again.generation == bad.generation:
        again.gen.close()  # (not unpublished: a read-only cache) — never ask it again
        return _memory(conn, identity, "the damaged generation could not be removed")
    return again


def build_detached(identity: str) -> None:
    """Start `python -P -m rq_engine.text.cache IDENTITY` in its own session, stdio on
    /dev/null, as this very rq (the warmer's way: index/warm.spawn_module). Nothing to
    wait for: the next query finds its generation, or another builder's."""
    from rq_engine.index.warm import spawn_module

    spawn_module("rq_engine.text.cache", identity)


def _memory(conn: sqlite3.Connection, identity: str, why: str) -> Served:
    from rq_engine.text import source

    return Served("memory", why, None, source.realize(conn, identity))
