"""Serving a published generation: open and validate it, then read only what a query
touches — the query terms' postings and the rows of the candidates it looks at.

`Generation` is both the `Postings` that bm25.rank scores and the `GraphView`
its rerank reads; both are keyed by the generation's order-preserving document
keys, and `answer` turns keys back into stable IDs and nodes. A generation is a
base, or an overlay over its base (rq_engine/text/cache/delta.py): then every
read merges the two — the overlay's rows win, the base's postings of `gone`
documents are dropped and the overlay's merged in, in key order. A reader keeps
its open files: a generation published meanwhile never changes what it reads
(files are immutable; an unlinked file stays readable while open).
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from pathlib import Path

from rq_engine.core.record import Record
from rq_engine.text import bm25
from rq_engine.text.cache import schema
from rq_engine.text.cache.manifest import BadGeneration, Manifest, parse
from rq_engine.text.graph import FILE_KIND, Node, file_id
from rq_engine.text.query import Ranked, Ranking, StructurePart, TextQuery, bm25_idf

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.core.cancel import CancelToken

_CHUNK = 500  # keys per IN (...) batch


def open_file(path: str, *, deep: bool = False) -> tuple[sqlite3.Connection, Manifest]:
    """A read-only connection to a complete, valid generation, or BadGeneration.

    Checks the format major, the manifest (fields, bounds, checksum), its state,
    the file size against the byte limit, and the stored statistics against the
    manifest; `deep` also recomputes a base's statistics from its rows (publication
    does this before a generation becomes current; an overlay's need its base:
    open_generation)."""
    try:
        size = os.stat(path).st_size
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except (OSError, sqlite3.Error) as e:
        raise BadGeneration(f"cannot open {path}: {e}") from None
    try:
        (major,) = conn.execute("PRAGMA user_version").fetchone()
        if major != schema.FORMAT_MAJOR:
            raise BadGeneration(f"unknown cache format major {major} in {path}")
        row = conn.execute("SELECT body FROM manifest WHERE one = 1").fetchone()
        if row is None:
            raise BadGeneration(f"{path} has no manifest")
        m = parse(row[0])
        if m.state != "complete":
            raise BadGeneration(f"{path} is incomplete ({m.state})")
        if size > m.limits.bytes:
            raise BadGeneration(f"{path} is {size:,} bytes (limit {m.limits.bytes:,})")
        st = conn.execute(
            "SELECT docs, total_length, terms, postings, lexical FROM stats"
        ).fetchone()
        if st is None or tuple(st) != (m.docs, m.total_length, m.terms, m.postings, m.lexical):
            raise BadGeneration(f"{path}: stored statistics differ from the manifest")
        if deep and m.build == "full":
            from rq_engine.text.cache.build import verify_stats

            verify_stats(conn, m)
    except sqlite3.Error as e:
        conn.close()
        raise BadGeneration(f"{path} is damaged: {e}") from None
    except BadGeneration:
        conn.close()
        raise
    return conn, m


def open_generation(path: Path, profile: bm25.Bm25Profile, *, deep: bool = False) -> Generation:
    """A published file ready to serve: a base, or an overlay with the base it names
    (in the same directory, its manifest's checksum the one the overlay recorded)."""
    conn, m = open_file(str(path), deep=deep)
    if m.build == "full":
        return Generation(conn, m, profile)
    from rq_engine.text.cache import store

    try:
        assert m.parent is not None
        if not store.is_base(m.parent):
            raise BadGeneration(f"{path.name} names {m.parent!r} as its base")
        bconn, bm = open_file(str(path.parent / m.parent), deep=deep)
    except BaseException:
        conn.close()
        raise
    try:
        if bm.checksum() != m.base or (bm.repository, bm.profile, bm.analyzer) != (
            m.repository, m.profile, m.analyzer
        ):  # fmt: skip
            raise BadGeneration(f"{path.name} is not an overlay of {m.parent}")
        if deep:
            from rq_engine.text.cache.delta import merged_stats

            want = (m.docs, m.total_length, m.terms, m.postings, m.lexical)
            if merged_stats(bconn, conn) != want:
                raise BadGeneration(f"{path.name}: statistics do not recompute over its base")
        return Generation(bconn, bm, profile, over=(conn, m))
    except sqlite3.Error as e:
        bconn.close()
        conn.close()
        raise BadGeneration(f"{path} is damaged: {e}") from None
    except BaseException:
        bconn.close()
        conn.close()
        raise


class _Row(Record):
    node: Node
    parent: int | None
    length: int
    derived: str | None


class Generation:
    """bm25.Postings + rerank.GraphView over one open generation (a base, or an overlay
    and its base)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        m: Manifest,
        profile: bm25.Bm25Profile,
        *,
        over: tuple[sqlite3.Connection, Manifest] | None = None,
    ) -> None:
        if m.profile != profile.id:
            raise BadGeneration(f"generation is for {m.profile}, not {profile.id}")
        self.conn = conn  # the base
        self.base_manifest = m
        self.over = over[0] if over is not None else None
        self.manifest = over[1] if over is not None else m  # what is served
        self.profile = profile
        self.n_docs = self.manifest.docs
        tl = self.manifest.total_length
        self.avgdl = tl / self.n_docs if self.n_docs else 0.0
        # an overlay's keys: base postings that no longer count, rows it replaces
        self._gone: list[int] = []
        self._mine: set[int] = set()
        if self.over is not None:
            self._gone = [int(r[0]) for r in self.over.execute("SELECT doc FROM gone ORDER BY doc")]
            mine = [int(r[0]) for r in self.over.execute("SELECT doc FROM docs ORDER BY doc")]
            if schema.key_seal(self._gone, mine) != self.manifest.keys:
                raise BadGeneration("the overlay's keys are not the ones it was sealed with")
            self._mine = set(mine)
        self._masked = self._mine.union(self._gone)
        self._terms: dict[str, tuple[int, array[int], array[int], array[int]] | None] = {}
        self._sat: dict[str, array[float]] = {}
        self._rows: dict[int, _Row] = {}
        self._kids: dict[int, tuple[int, ...]] = {}
        self.by_id: dict[int, Node] = {}
        self._key_of: dict[str, int] = {}
        self.length: dict[int, int] = {}
        self.derived: dict[int, str] = {}

    @property
    def overlay_rows(self) -> int:
        """What an overlay adds to every read (0 for a base)."""
        return len(self._masked)

    def close(self) -> None:
        self.conn.close()
        if self.over is not None:
            self.over.close()

    # --- Postings ---------------------------------------------------------------------

    def _term(self, t: str) -> tuple[int, array[int], array[int], array[int]] | None:
        if t not in self._terms:
            p = _postings(self.conn, t)
            if self.over is not None:
                p = self._merge(p, _postings(self.over, t))
            self._terms[t] = p
        return self._terms[t]

    def _merge(
        self,
        base: tuple[int, array[int], array[int], array[int]] | None,
        mine: tuple[int, array[int], array[int], array[int]] | None,
    ) -> tuple[int, array[int], array[int], array[int]] | None:
        """A base posting list less the gone documents, with the overlay's, in key order."""
        if base is None:
            return mine
        _, docs, tfs, dls = base
        drop = []
        for g in self._gone:  # (a handful of keys against thousands of postings)
            j = bisect_left(docs, g)
            if j < len(docs) and docs[j] == g:
                drop.append(j)
        if drop:
            docs, tfs, dls = (array(a.typecode, a) for a in (docs, tfs, dls))
            for j in reversed(drop):
                del docs[j], tfs[j], dls[j]
        if mine is not None and len(mine[1]) > 32:  # a large overlay: one sort, not inserts
            both = sorted(
                [*zip(docs, tfs, dls, strict=True), *zip(mine[1], mine[2], mine[3], strict=True)]
            )
            docs = array(docs.typecode, (r[0] for r in both))
            tfs = array(tfs.typecode, (r[1] for r in both))
            dls = array(dls.typecode, (r[2] for r in both))
        elif mine is not None:
            if not drop:
                docs, tfs, dls = (array(a.typecode, a) for a in (docs, tfs, dls))
            for k, tf, dl in zip(mine[1], mine[2], mine[3], strict=True):
                j = bisect_left(docs, k)
                docs.insert(j, k)
                tfs.insert(j, tf)
                dls.insert(j, dl)
        return (len(docs), docs, tfs, dls) if docs else None

    def has(self, term: str) -> bool:
        return self._term(term) is not None

    def df(self, term: str) -> int:
        p = self._term(term)
        return p[0] if p else 0

    def idf(self, term: str) -> float:
        return bm25_idf(self.n_docs, self.df(term))

    def pids(self, term: str) -> Sequence[int]:
        p = self._term(term)
        return p[1] if p else array(schema.KEYS)

    def saturated(self, term: str) -> array[float]:
        sat = self._sat.get(term)
        if sat is None:
            p = self._term(term)
            assert p is not None
            prof, avgdl = self.profile, self.avgdl
            k1p = prof.k1 + 1.0
            # K per distinct length (a few hundred values over 10^5 postings), by
            # bm25.norm_k as the in-memory index computes it: the same floats
            nk = {dl: bm25.norm_k(prof, dl, avgdl) for dl in set(p[3])}
            sat = array("d", [c * k1p / (c + nk[dl]) for c, dl in zip(p[2], p[3], strict=True)])
            self._sat[term] = sat
        return sat

    def best(self, term: str) -> int:
        return int(bm25.best_of(self.pids(term), self.saturated(term)))

    def impact_order(self, term: str) -> list[int]:
        return bm25.impact_of(self.pids(term), self.saturated(term))

    def exact(self, compact: str) -> set[int]:
        if not compact:
            return set()
        got = _exact(self.conn, compact) - self._masked
        if self.over is not None:
            got |= _exact(self.over, compact)
        return got

    # --- GraphView --------------------------------------------------------------------

    @property
    def children(self) -> dict[int, tuple[int, ...]]:
        return self._kids

    def prefetch(self, keys: Iterable[int], parents: Iterable[int]) -> None:
        self._load([k for k in keys if k not in self._rows])
        todo = [p for p in parents if p not in self._kids]
        for i in range(0, len(todo), _CHUNK):
            chunk = todo[i : i + _CHUNK]
            got: dict[int, list[int]] = {p: [] for p in chunk}
            marks = ",".join("?" * len(chunk))
            for doc, parent in self.conn.execute(
                f"SELECT doc, parent FROM docs WHERE parent IN ({marks}) ORDER BY doc", chunk
            ):
                if doc not in self._masked:
                    got[parent].append(doc)
            if self.over is not None:
                for doc, parent in self.over.execute(
                    f"SELECT doc, parent FROM docs WHERE parent IN ({marks})", chunk
                ):
                    got[parent].append(doc)
                for v in got.values():
                    v.sort()
            self._kids.update((p, tuple(v)) for p, v in got.items())

    def _load(self, keys: list[int]) -> None:
        if self.over is not None:
            self._load_from(self.over, [k for k in keys if k in self._mine])
            keys = [k for k in keys if k not in self._mine]
        self._load_from(self.conn, keys)

    def _load_from(self, conn: sqlite3.Connection, keys: list[int]) -> None:
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(
                f"SELECT doc, {schema.DOC_CRC}, crc FROM docs WHERE doc IN ({marks})", chunk
            ):
                doc, sid, name, qual, kind, path, lang, line, end, parent, length = row[:11]
                derived = row[15]
                if schema.row_crc(*row[1:-1]) != row[-1]:
                    raise BadGeneration(f"the row of {sid!r} is damaged")
                node = Node(sid, kind, name, qual, path, line, end, lang)
                self._rows[doc] = _Row(node, parent, length, derived)
                self.by_id[doc] = node
                self._key_of[sid] = doc
                self.length[doc] = length
                if derived is not None:
                    self.derived[doc] = derived

    # --- answers ----------------------------------------------------------------------

    def chain(self, key: int) -> list[Node]:
        """The containers of a document, its file first (as Graph.chain gives them)."""
        out: list[Node] = []
        row = self._rows[key]
        while row.parent is not None:
            if row.parent not in self._rows:
                self._load([row.parent])
            row = self._rows[row.parent]
            out.append(row.node)
        n = row.node
        base = n.path.rsplit("/", 1)[-1]
        out.append(
            Node(
                file_id(self.manifest.repository, n.path),
                FILE_KIND,
                base,
                n.path,
                n.path,
                1,
                None,
                n.language,
            )
        )
        out.reverse()
        return out

    def rank(
        self, q: TextQuery, *, explain: bool, limit: int | None, cancel: CancelToken | None = None
    ) -> Ranking:
        """bm25.rank over this generation, with keys turned back into stable IDs."""
        ranking = bm25.rank(self, self, q, explain=explain, limit=limit, cancel=cancel)
        # (Ranked.id and StructurePart.child hold document keys until here)
        key: dict[object, int] = {}
        for r in ranking.results:
            key[r.id] = int(r.id)
            for s in r.explain.structure if r.explain else ():
                key[s.child] = int(s.child)
        self._load([k for k in key.values() if k not in self._rows])
        out: list[Ranked] = []
        for r in ranking.results:
            ex = r.explain
            if ex is not None:
                parts = tuple(
                    StructurePart(self.by_id[key[s.child]].id, s.units, s.contribution)
                    for s in ex.structure
                )
                ex = type(ex)(ex.terms, parts, ex.norm, ex.features)
            sid = self.by_id[key[r.id]].id
            out.append(Ranked(sid, r.score, r.lexical, r.structure, r.mask, r.coverage, ex))
        ranking.results = out
        return ranking

    def hit(self, stable_id: str) -> tuple[Node, list[Node]]:
        """A ranked result's node and its chain of containers."""
        key = self._key_of[stable_id]
        return self.by_id[key], self.chain(key)


def _postings(
    conn: sqlite3.Connection, t: str
) -> tuple[int, array[int], array[int], array[int]] | None:
    row = conn.execute(f"SELECT {schema.TERM_CRC}, crc FROM terms WHERE text = ?", (t,)).fetchone()
    if row is None:
        return None
    _, df, docs, tfs, dls, crc = row
    p = (df, schema.unpack(docs, schema.KEYS), schema.unpack(tfs), schema.unpack(dls))
    if schema.row_crc(*row[:-1]) != crc or not df == len(p[1]) == len(p[2]) == len(p[3]):
        raise BadGeneration(f"the postings of {t!r} are damaged")
    return p


def _exact(conn: sqlite3.Connection, compact: str) -> set[int]:
    return {
        int(r[0])
        for r in conn.execute(
            # (`!= ''` lets the planner use the partial indexes)
            "SELECT doc FROM docs WHERE cn = ?1 AND cn != ''"
            " UNION SELECT doc FROM docs WHERE cq = ?1 AND cq != ''",
            (compact,),
        )
    }
