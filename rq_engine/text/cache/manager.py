"""The cache manager: which ranker state answers a bm25-v1 query, chosen deterministically.

The ladder, first that applies:
  hit       the current generation is bound to the index's state of the repository now;
  delta     a valid prior generation of the same index and repository, the change log
            still covers it, and at most MAX_DELTA_PATHS paths changed: copy, apply the
            exact delta, publish (`edge` when no document's projection changed);
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

from rq_engine.core.value import value
from rq_engine.text import bm25, lexical
from rq_engine.text.cache import store
from rq_engine.text.cache.manifest import BadGeneration, Limits, Manifest, graph_token
from rq_engine.text.cache.reader import Generation, open_file

# An exact hit imports only the above; building reads the index's rows and writes a
# generation, and imports what that needs when it happens.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.text.graph import Graph

MAX_DELTA_PATHS = 5_000


@value
class Served:
    state: str  # hit | delta | edge | rebuilt | memory
    note: str
    gen: Generation | None = None
    graph: Graph | None = None  # the realized graph, when the answer comes from memory
    generation: str = ""  # the published file's name
    pending: bool = False  # a full build is due: hand it to a detached builder


class _Defer(Exception):
    """A full build is due and is not to be done in this process."""


@value
class _Token:
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
) -> Served:
    """The pinned ranker state for one repository's current index (see the ladder).

    A full build takes seconds on a large repository (Go std: ~260k documents), far
    more than ranking in memory: with `detach` (the default; RQ_TEXT_CACHE_DETACH=0
    turns it off) a query that needs one answers from memory and says `pending`, and
    its caller hands the build to a detached `python -m rq_engine.text.cache`. A
    delta is applied here: it costs about what it saves."""
    import os

    limits = limits or Limits()
    if detach is None:
        detach = os.environ.get("RQ_TEXT_CACHE_DETACH", "1") != "0"
    tok = _token(conn, identity)
    if tok is None:
        return _memory(conn, identity, "the index predates the text cache")
    d = store.directory(tok.store, tok.rid)
    why = ""
    prior: tuple[Path, Manifest] | None = None
    cur = store.current(d)
    if cur is not None:
        try:
            gconn, m = open_file(str(cur))
        except BadGeneration as e:
            why = f"the cached generation was unusable ({e}); "
        else:
            usable = (
                m.profile == profile.id
                and m.analyzer == lexical.ANALYZER_ID
                and m.repository == identity
            )
            if usable and m.graph == tok.graph:
                return Served("hit", "", Generation(gconn, m, profile), generation=cur.name)
            gconn.close()
            same = m.graph.startswith(f"rq-index:{tok.store}:{tok.rid}:")
            if usable and same and m.seq >= tok.floor and m.seq <= tok.seq:
                prior = (cur, m)
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


def _build(
    conn: sqlite3.Connection,
    identity: str,
    d: Path,
    prior: tuple[Path, Manifest] | None,
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
        if prior is not None:
            paths = [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT path FROM text_changes WHERE repository_id = ? AND seq > ?",
                    (tok.rid, prior[1].seq),
                )
            ]
            if len(paths) <= MAX_DELTA_PATHS:
                nodes, edges = source.realize_files(conn, identity, tok.rid, paths, snapshot=False)
                part = Graph(identity, nodes, edges)
                try:
                    return _delta(d, prior, part, paths, tok, profile, limits)
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
    d: Path, tmp: Path, wconn: sqlite3.Connection, m: Manifest, profile: bm25.Bm25Profile
) -> tuple[Generation, str]:
    """Validate, mark complete, publish, reopen read-only."""
    from rq_engine.text.cache.build import CacheLimit, verify_stats, write_manifest

    write_manifest(wconn, m)
    verify_stats(wconn, m)
    wconn.execute("COMMIT")
    store.phase("staged")
    wconn.execute("BEGIN")
    write_manifest(wconn, m.complete())
    wconn.execute("COMMIT")
    wconn.close()
    store.phase("complete")
    if tmp.stat().st_size > m.limits.bytes:
        raise CacheLimit(f"{tmp.stat().st_size:,} bytes (limit {m.limits.bytes:,})")
    final = store.publish(d, tmp, m.seq)
    gconn, got = open_file(str(final))
    return Generation(gconn, got, profile), final.name


def _manifest(
    identity: str, tok: _Token, stats: tuple[int, int, int, int, str], profile: bm25.Bm25Profile,
    limits: Limits, build: str, parent: str | None,
) -> Manifest:  # fmt: skip
    n, total, nt, npost, lex = stats
    return Manifest(
        format=1, analyzer=lexical.ANALYZER_ID, profile=profile.id, repository=identity,
        graph=tok.graph, seq=tok.seq, lexical=lex, docs=n, total_length=total, terms=nt,
        postings=npost, limits=limits, build=build, parent=parent, state="building",
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
        m = _manifest(graph.repository, tok, stats, profile, limits, "full", None)
        gen, name = _finish(d, tmp, wconn, m, profile)
    except BaseException:
        wconn.close()
        tmp.unlink(missing_ok=True)
        raise
    return Served("rebuilt", why.rstrip("; "), gen, graph, generation=name)


def _delta(
    d: Path,
    prior: tuple[Path, Manifest],
    part: Graph,
    paths: list[str],
    tok: _Token,
    profile: bm25.Bm25Profile,
    limits: Limits,
) -> Served:
    import shutil

    from rq_engine.text.cache.build import facts
    from rq_engine.text.cache.delta import apply

    tmp = store.temporary(d)
    shutil.copyfile(prior[0], tmp)
    wconn = sqlite3.connect(tmp, isolation_level=None)
    try:
        wconn.execute("PRAGMA journal_mode = OFF")
        wconn.execute("PRAGMA synchronous = OFF")
        wconn.execute("BEGIN")
        c, stats = apply(wconn, paths, facts(part), profile, limits)
        lexical_same = not (c.added or c.removed or c.changed)
        build = "edge" if lexical_same else "delta"
        m = _manifest(part.repository, tok, stats, profile, limits, build, prior[0].name)
        gen, name = _finish(d, tmp, wconn, m, profile)
    except BaseException:
        wconn.close()
        tmp.unlink(missing_ok=True)
        raise
    return Served(build, "", gen, generation=name)


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
                    (d / "current").unlink()
                    cur.unlink()
        except (store.Busy, OSError):
            pass  # (another builder is replacing it right now)
    again = serve(conn, identity)
    if again.gen is not None and again.generation == bad.generation:
        again.gen.conn.close()  # (not unpublished: a read-only cache) — never ask it again
        return _memory(conn, identity, "the damaged generation could not be removed")
    return again


def build_detached(identity: str) -> None:
    """Start `python -m rq_engine.text.cache IDENTITY` in its own session, stdio on
    /dev/null (the warmer's way: index/warm.py). Nothing to wait for: the next query
    finds its generation, or another builder's."""
    import sys

    from rq_engine.index.warm import spawn_detached

    spawn_detached([sys.executable, "-m", "rq_engine.text.cache", identity])


def _memory(conn: sqlite3.Connection, identity: str, why: str) -> Served:
    from rq_engine.text import source

    return Served("memory", why, None, source.realize(conn, identity))
