"""Serving a published generation: open and validate it, then read only what a query
touches — the query terms' postings and the rows of the candidates it looks at.

`Generation` is both the `Postings` that bm25.rank scores and the `GraphView`
its rerank reads; both are keyed by the generation's order-preserving document
keys, and `answer` turns keys back into stable IDs and nodes. A reader keeps
its open file: a generation published meanwhile never changes what it reads
(generations are immutable; an unlinked file stays readable while open).
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Iterable, Sequence

from rq_engine.core.value import value
from rq_engine.text import bm25
from rq_engine.text.cache import schema
from rq_engine.text.cache.manifest import BadGeneration, Manifest, parse
from rq_engine.text.graph import FILE_KIND, Node, file_id
from rq_engine.text.query import Ranked, Ranking, StructurePart, TextQuery, bm25_idf

_CHUNK = 500  # keys per IN (...) batch


def open_file(path: str, *, deep: bool = False) -> tuple[sqlite3.Connection, Manifest]:
    """A read-only connection to a complete, valid generation, or BadGeneration.

    Checks the format major, the manifest (fields, bounds, checksum), its state,
    the file size against the byte limit, and the stored statistics against the
    manifest; `deep` also recomputes the statistics from the rows (publication
    does this before a generation becomes current)."""
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
        if deep:
            from rq_engine.text.cache.build import verify_stats

            verify_stats(conn, m)
    except sqlite3.Error as e:
        conn.close()
        raise BadGeneration(f"{path} is damaged: {e}") from None
    except BadGeneration:
        conn.close()
        raise
    return conn, m


@value
class _Row:
    node: Node
    parent: int | None
    length: int
    derived: str | None


class Generation:
    """bm25.Postings + rerank.GraphView over one open generation."""

    def __init__(self, conn: sqlite3.Connection, m: Manifest, profile: bm25.Bm25Profile) -> None:
        if m.profile != profile.id:
            raise BadGeneration(f"generation is for {m.profile}, not {profile.id}")
        self.conn = conn
        self.manifest = m
        self.profile = profile
        self.n_docs = m.docs
        self.avgdl = m.total_length / m.docs if m.docs else 0.0
        self._terms: dict[str, tuple[int, array[int], array[int], array[int]] | None] = {}
        self._sat: dict[str, array[float]] = {}
        self._rows: dict[int, _Row] = {}
        self._kids: dict[int, tuple[int, ...]] = {}
        self.by_id: dict[int, Node] = {}
        self._key_of: dict[str, int] = {}
        self.length: dict[int, int] = {}
        self.derived: dict[int, str] = {}

    # --- Postings ---------------------------------------------------------------------

    def _term(self, t: str) -> tuple[int, array[int], array[int], array[int]] | None:
        if t not in self._terms:
            row = self.conn.execute(
                f"SELECT {schema.TERM_CRC}, crc FROM terms WHERE text = ?", (t,)
            ).fetchone()
            if row is None:
                self._terms[t] = None
            else:
                _, df, docs, tfs, dls, crc = row
                p = (df, schema.unpack(docs, schema.KEYS), schema.unpack(tfs), schema.unpack(dls))
                if schema.row_crc(*row[:-1]) != crc or not df == len(p[1]) == len(p[2]) == len(
                    p[3]
                ):
                    raise BadGeneration(f"the postings of {t!r} are damaged")
                self._terms[t] = p
        return self._terms[t]

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
        return {
            int(r[0])
            for r in self.conn.execute(
                # (`!= ''` lets the planner use the partial indexes)
                "SELECT doc FROM docs WHERE cn = ?1 AND cn != ''"
                " UNION SELECT doc FROM docs WHERE cq = ?1 AND cq != ''",
                (compact,),
            )
        }

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
                got[parent].append(doc)
            self._kids.update((p, tuple(v)) for p, v in got.items())

    def _load(self, keys: list[int]) -> None:
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
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

    def rank(self, q: TextQuery, *, explain: bool, limit: int | None) -> Ranking:
        """bm25.rank over this generation, with keys turned back into stable IDs."""
        ranking = bm25.rank(self, self, q, explain=explain, limit=limit)
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
