"""Exact deltas: a copy of the prior generation brought to the current rows of the
paths that changed, in one transaction.

The prior and current documents of those paths are merged by stable ID into
unchanged / added / removed / changed (by lexical fingerprint); documents whose
lexical projection is the same but whose graph facts moved (line, span,
container, language) are updated in place without touching a posting — an
edge- or line-only change reuses every posting. Removals go through the
reverse term records; every statistic (documents, total length, document
frequencies, postings, the set digest) is updated exactly, a term whose
frequency reaches zero is deleted, and the result passes the same
recompute-from-rows check as a full build.
"""

from __future__ import annotations

import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Iterable

from rq_engine.core.value import field, value
from rq_engine.text.bm25 import Bm25Profile, Weigher
from rq_engine.text.cache import schema
from rq_engine.text.cache.build import Analyzed, CacheLimit, Fact, analyze
from rq_engine.text.cache.manifest import BadGeneration, Limits


class NeedFull(Exception):
    """The delta cannot be applied exactly here (no room between keys): build in full."""


@value
class Classified:
    added: list[Fact] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[Fact] = field(default_factory=list)
    moved: list[Fact] = field(default_factory=list)  # same lexical projection, new facts
    unchanged: int = 0


@value
class _Prior:
    doc: int
    fp: bytes
    fact: Fact
    length: int
    terms: bytes
    twin: str | None


def classify(prior: dict[str, _Prior], current: list[Fact], fps: dict[str, bytes]) -> Classified:
    """Merge by stable ID; duplicates are an error, never a pick."""
    out = Classified()
    seen: set[str] = set()
    for f in current:
        if f.id in seen:
            raise BadGeneration(f"duplicate stable ID {f.id!r} in the current rows")
        seen.add(f.id)
        p = prior.get(f.id)
        if p is None:
            out.added.append(f)
        elif p.fp != fps[f.id]:
            out.changed.append(f)
        elif p.fact != f:
            out.moved.append(f)
        else:
            out.unchanged += 1
    out.removed = sorted(i for i in prior if i not in seen)
    return out


def _prior_rows(conn: sqlite3.Connection, paths: list[str]) -> dict[str, _Prior]:
    out: dict[str, _Prior] = {}
    key_id: dict[int, str] = {}
    rows = []
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        marks = ",".join("?" * len(chunk))
        got = conn.execute(
            f"SELECT doc, {schema.DOC_CRC}, crc FROM docs WHERE path IN ({marks})", chunk
        ).fetchall()
        for r in got:
            if schema.row_crc(*r[1:-1]) != r[-1]:
                raise BadGeneration(f"the prior row of {r[1]!r} is damaged")
        rows += got
    for r in rows:
        key_id[r[0]] = r[1]
    for r in rows:
        doc, sid, name, qual, kind, path, lang, line, end, parent, length, fp = r[:12]
        twin, terms = r[14], r[16]
        pid = None
        if parent is not None:
            pid = key_id.get(parent)
            if pid is None:  # a container in another path cannot be: files own their edges
                raise BadGeneration(f"document {sid!r} has a container outside its file")
        fact = Fact(sid, name, qual, kind, path, lang, line, end, pid)
        out[sid] = _Prior(doc, fp, fact, length, terms, twin)
    return out


class _Terms:
    """Term rows loaded once, edited in memory, written once."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rows: dict[int, tuple[str, array[int], array[int], array[int]]] = {}
        self.by_text: dict[str, int] = {}
        self.next_id = (
            int(conn.execute("SELECT coalesce(max(term), 0) FROM terms").fetchone()[0]) + 1
        )
        self.new: set[int] = set()

    def load_id(self, tid: int) -> None:
        if tid not in self.rows:
            r = self.conn.execute(
                f"SELECT {schema.TERM_CRC}, crc FROM terms WHERE term = ?", (tid,)
            ).fetchone()
            if r is None:
                raise BadGeneration(f"reverse record names missing term {tid}")
            if schema.row_crc(*r[:-1]) != r[-1]:
                raise BadGeneration(f"the prior postings of {r[0]!r} are damaged")
            self.rows[tid] = (
                r[0],
                schema.unpack(r[2], schema.KEYS),
                schema.unpack(r[3]),
                schema.unpack(r[4]),
            )
            self.by_text[r[0]] = tid

    def id_of(self, text: str) -> int:
        tid = self.by_text.get(text)
        if tid is None:
            r = self.conn.execute("SELECT term FROM terms WHERE text = ?", (text,)).fetchone()
            if r is not None:
                tid = int(r[0])
                self.load_id(tid)
            else:
                tid = self.next_id
                self.next_id += 1
                self.rows[tid] = (
                    text,
                    array(schema.KEYS),
                    array(schema.SMALL),
                    array(schema.SMALL),
                )
                self.by_text[text] = tid
                self.new.add(tid)
        return tid

    def remove(self, tid: int, doc: int) -> None:
        self.load_id(tid)
        _, docs, tfs, dls = self.rows[tid]
        j = bisect_left(docs, doc)
        if j == len(docs) or docs[j] != doc:
            raise BadGeneration(f"term {tid} has no posting for document {doc}")
        del docs[j], tfs[j], dls[j]

    def add(self, tid: int, doc: int, tf: int, dl: int) -> None:
        _, docs, tfs, dls = self.rows[tid]
        j = bisect_left(docs, doc)
        if j < len(docs) and docs[j] == doc:
            raise BadGeneration(f"term {tid} already has document {doc}")
        docs.insert(j, doc)
        tfs.insert(j, tf)
        dls.insert(j, dl)

    def flush(self) -> tuple[int, int]:
        """Write every touched term (deleting those left without a posting).
        Returns the change in (terms, postings)."""
        dterms = dpost = 0
        for tid, (text, docs, tfs, dls) in self.rows.items():
            old = None
            if tid not in self.new:
                old = self.conn.execute("SELECT df FROM terms WHERE term = ?", (tid,)).fetchone()[0]
            if not docs:
                if old is not None:
                    self.conn.execute("DELETE FROM terms WHERE term = ?", (tid,))
                    dterms -= 1
                    dpost -= old
                continue
            blob = (schema.pack(docs, schema.KEYS), schema.pack(tfs), schema.pack(dls))
            if old is None:
                self.conn.execute(
                    "INSERT INTO terms VALUES (?, ?, ?, ?, ?, ?, NULL)",
                    (tid, text, len(docs), *blob),
                )
                dterms += 1
                dpost += len(docs)
            else:
                self.conn.execute(
                    "UPDATE terms SET df = ?, docs = ?, tfs = ?, dls = ? WHERE term = ?",
                    (len(docs), *blob, tid),
                )
                dpost += len(docs) - old
        return dterms, dpost


def _new_key(conn: sqlite3.Connection, sid: str, taken: set[int]) -> int:
    """A key between the neighbours' keys in stable-ID order (NeedFull when no room)."""
    # Keys follow stable-ID order, so the neighbours by ID hold the neighbouring keys:
    # one probe of the ID index each (max(doc) over `id < ?` scanned half the table,
    # ~40 ms a new definition on Go std)
    prev = conn.execute(
        "SELECT doc FROM docs WHERE id < ? ORDER BY id DESC LIMIT 1", (sid,)
    ).fetchone()
    nxt = conn.execute("SELECT doc FROM docs WHERE id > ? ORDER BY id LIMIT 1", (sid,)).fetchone()
    lo = int(prev[0]) if prev is not None else 0
    hi = lo + 2 * schema.GAP if nxt is None else int(nxt[0])
    k = (lo + hi) // 2
    if k <= lo or k >= hi or k in taken:
        raise NeedFull(f"no room for a key at {sid!r}")
    return k


def apply(
    conn: sqlite3.Connection,
    paths: Iterable[str],
    current: list[Fact],
    profile: Bm25Profile,
    limits: Limits,
) -> tuple[Classified, tuple[int, int, int, int, str]]:
    """Bring the generation's documents of `paths` to `current` (their facts now).
    Runs inside the caller's transaction. Returns the classification and the new
    (documents, total length, terms, postings, lexical digest)."""
    plist = sorted(set(paths))
    prior = _prior_rows(conn, plist)
    weigh = Weigher(profile)
    analyzed: dict[str, Analyzed] = {f.id: analyze(weigh, f) for f in current}
    c = classify(prior, current, {i: a.fp for i, a in analyzed.items()})
    st = conn.execute("SELECT docs, total_length, terms, postings, lexical FROM stats").fetchone()
    n_docs, total, n_terms, n_post = int(st[0]), int(st[1]), int(st[2]), int(st[3])
    digest = int(st[4], 16)
    terms = _Terms(conn)
    twins: set[str] = set()
    keys: dict[str, int] = {}
    # removals (and the old side of changes) through their reverse term records
    for sid in [*c.removed, *(f.id for f in c.changed)]:
        p = prior[sid]
        old = schema.unpack(p.terms)
        for j in range(0, len(old), 2):
            terms.remove(old[j], p.doc)
        n_docs -= 1
        total -= p.length
        if n_docs < 0 or total < 0:
            raise BadGeneration("a removal would make the statistics negative")
        digest = schema.sub_digest(digest, schema.doc_hash(sid, p.fp))
        if p.twin is not None:
            twins.add(p.twin[1:])
        if sid in c.removed:
            conn.execute("DELETE FROM docs WHERE doc = ?", (p.doc,))
        else:
            keys[sid] = p.doc
    for f in c.moved:
        keys[f.id] = prior[f.id].doc
    for f in current:
        if f.id in prior and f.id not in keys:
            keys[f.id] = prior[f.id].doc
    taken = set(keys.values())
    for f in sorted(c.added, key=lambda f: f.id):
        k = _new_key(conn, f.id, taken)
        keys[f.id] = k
        taken.add(k)
        # a placeholder row holds the key's place for the next neighbour lookup
        conn.execute(
            "INSERT INTO docs(doc, id, name, qualified, kind, path, line, length, fp, cn, cq, terms)"
            " VALUES (?, ?, '', '', '', '', 1, 0, x'', '', '', x'')",
            (k, f.id),
        )
    # additions and the new side of changes
    for f in [*c.added, *c.changed]:
        a = analyzed[f.id]
        k = keys[f.id]
        rev: list[int] = []
        for t, tf in a.tf.items():
            tid = terms.id_of(t)
            terms.add(tid, k, tf, a.length)
            rev.extend((tid, tf))
        n_docs += 1
        total += a.length
        digest = schema.add_digest(digest, schema.doc_hash(f.id, a.fp))
        if a.twin is not None:
            twins.add(a.twin[1:])
        parent = keys.get(f.parent) if f.parent is not None else None
        conn.execute(
            "UPDATE docs SET name = ?, qualified = ?, kind = ?, path = ?, language = ?, line = ?,"
            " end_line = ?, parent = ?, length = ?, fp = ?, cn = ?, cq = ?, twin = ?, derived = NULL,"
            " terms = ? WHERE doc = ?",
            (f.name, f.qualified, f.kind, f.path, f.language, f.line, f.end_line, parent,
             a.length, a.fp, a.cn, a.cq, a.twin, schema.pack(rev), k),
        )  # fmt: skip
    for f in c.moved:
        parent = keys.get(f.parent) if f.parent is not None else None
        conn.execute(
            "UPDATE docs SET name = ?, qualified = ?, kind = ?, path = ?, language = ?, line = ?,"
            " end_line = ?, parent = ? WHERE doc = ?",
            (
                f.name,
                f.qualified,
                f.kind,
                f.path,
                f.language,
                f.line,
                f.end_line,
                parent,
                keys[f.id],
            ),
        )
    dterms, dpost = terms.flush()
    schema.with_crc(conn)
    touched = list(terms.rows)
    for i in range(0, len(touched), 500):
        chunk = touched[i : i + 500]
        conn.execute(
            f"UPDATE terms SET crc = rq_crc({schema.TERM_CRC})"
            f" WHERE term IN ({','.join('?' * len(chunk))})",
            chunk,
        )
    n_terms += dterms
    n_post += dpost
    for tk in sorted(twins):  # a twin's source is the first source of its key by stable ID
        src = conn.execute(
            "SELECT id FROM docs WHERE twin = ? ORDER BY doc LIMIT 1", ("s" + tk,)
        ).fetchone()
        conn.execute(
            "UPDATE docs SET derived = ? WHERE twin = ?", (src[0] if src else None, "d" + tk)
        )
    rows = sorted({keys[f.id] for f in [*c.added, *c.changed, *c.moved]})
    for tk in twins:
        rows += [r[0] for r in conn.execute("SELECT doc FROM docs WHERE twin = ?", ("d" + tk,))]
    for i in range(0, len(rows), 500):
        chunk = rows[i : i + 500]
        conn.execute(
            f"UPDATE docs SET crc = rq_crc({schema.DOC_CRC})"
            f" WHERE doc IN ({','.join('?' * len(chunk))})",
            chunk,
        )
    if n_docs > limits.docs or n_terms > limits.terms or n_post > limits.postings:
        raise CacheLimit(f"{n_docs:,} documents, {n_terms:,} terms, {n_post:,} postings")
    lex = schema.hex_digest(digest)
    conn.execute(
        "UPDATE stats SET docs = ?, total_length = ?, terms = ?, postings = ?, lexical = ?",
        (n_docs, total, n_terms, n_post, lex),
    )
    return c, (n_docs, total, n_terms, n_post, lex)
