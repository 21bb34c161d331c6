"""Full, deterministic construction of a generation, and the exact-statistics check
every generation passes before it is marked complete.

Documents are written in stable-ID order with keys GAP apart, terms in sorted
order; the same graph always gives the same rows. Limits are checked before a
row is written. Stdlib + rq_engine.text only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from rq_engine.core.record import Record
from rq_engine.text import lexical
from rq_engine.text.bm25 import Bm25Profile, Weigher
from rq_engine.text.cache import schema
from rq_engine.text.cache.manifest import BadGeneration, Limits, Manifest
from rq_engine.text.graph import FILE_KIND, Graph
from rq_engine.text.twins import twin_key


class CacheLimit(BadGeneration):
    """The repository's projection is past a limit: this generation is not published."""


class Fact(Record):
    """One symbol node as a generation stores it (the graph's facts, not its positions)."""

    id: str
    name: str
    qualified: str
    kind: str
    path: str
    language: str | None
    line: int
    end_line: int | None
    parent: str | None  # the containing symbol's stable ID; None: the file

    def document(self) -> lexical.LexicalDocument:
        return lexical.project(self.id, self.name, self.qualified, self.kind, self.path)


def facts(graph: Graph) -> list[Fact]:
    """The symbol nodes of a realization in stable-ID order, each with its container."""
    out: list[Fact] = []
    for n in graph.nodes:
        if n.kind == FILE_KIND:
            continue
        p = graph.parent.get(n.id)
        parent = p if p is not None and graph.by_id[p].kind != FILE_KIND else None
        out.append(
            Fact(n.id, n.name, n.qualified, n.kind, n.path, n.language, n.line, n.end_line, parent)
        )
    return out


class Analyzed(Record):
    """A fact with what the profile makes of it."""

    fact: Fact
    tf: dict[str, int]
    length: int
    fp: bytes
    cn: str
    cq: str
    twin: str | None  # "s"/"d" + twin key


def analyze(weigh: Weigher, f: Fact) -> Analyzed:
    d = f.document()
    tf, length, cn, cq = weigh(d)
    tk = twin_key(d.path, d.qualified)
    twin = None if tk is None else ("d" if tk[1] else "s") + tk[0]
    return Analyzed(f, tf, length, schema.fingerprint(d), cn, cq, twin)


def create(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = OFF")  # a private temporary file until it is published
    conn.execute("PRAGMA synchronous = OFF")  # one fsync of the finished file instead
    conn.execute(f"PRAGMA user_version = {schema.FORMAT_MAJOR}")
    conn.executescript(schema.DDL)


def build_full(
    conn: sqlite3.Connection,
    all_facts: Iterable[Fact],
    profile: Bm25Profile,
    limits: Limits,
) -> tuple[int, int, int, int, str]:
    """Write every document, term and posting into an empty generation.
    Returns (documents, total length, terms, postings, lexical digest)."""
    weigh = Weigher(profile)
    docs = [analyze(weigh, f) for f in all_facts]
    if len(docs) > limits.docs:
        raise CacheLimit(f"{len(docs):,} documents (limit {limits.docs:,})")
    keys: dict[str, int] = {}
    prev = None
    for rank, a in enumerate(docs):
        if a.fact.id == prev or (prev is not None and a.fact.id < prev):
            raise BadGeneration(f"documents out of order or duplicated at {a.fact.id!r}")
        prev = a.fact.id
        keys[a.fact.id] = (rank + 1) * schema.GAP
    raw: dict[str, tuple[list[int], list[int], list[int]]] = {}
    for a in docs:
        k = keys[a.fact.id]
        for t, c in a.tf.items():
            p = raw.get(t)
            if p is None:
                raw[t] = ([k], [c], [a.length])
            else:
                p[0].append(k)
                p[1].append(c)
                p[2].append(a.length)
    n_postings = sum(len(p[0]) for p in raw.values())
    if len(raw) > limits.terms:
        raise CacheLimit(f"{len(raw):,} terms (limit {limits.terms:,})")
    if n_postings > limits.postings:
        raise CacheLimit(f"{n_postings:,} postings (limit {limits.postings:,})")
    term_id = {t: i for i, t in enumerate(sorted(raw), 1)}
    sources: dict[str, str] = {}
    for a in docs:  # stable-ID order: the first source of a key is the one twins copy
        if a.twin is not None and a.twin[0] == "s":
            sources.setdefault(a.twin[1:], a.fact.id)
    digest = 0
    total = 0
    rows = []
    for a in docs:
        f = a.fact
        digest = schema.add_digest(digest, schema.doc_hash(f.id, a.fp))
        total += a.length
        rev: list[int] = []
        for t, c in a.tf.items():  # (the analyzer's order: the same in a delta)
            rev.extend((term_id[t], c))
        derived = sources.get(a.twin[1:]) if a.twin is not None and a.twin[0] == "d" else None
        rows.append(
            (
                keys[f.id], f.id, f.name, f.qualified, f.kind, f.path, f.language, f.line,
                f.end_line, keys[f.parent] if f.parent is not None else None, a.length, a.fp,
                a.cn, a.cq, a.twin, derived, schema.pack(rev),
            )
        )  # fmt: skip
    conn.executemany(f"INSERT INTO docs VALUES ({','.join('?' * 17)}, NULL)", rows)
    conn.executemany(
        "INSERT INTO terms VALUES (?, ?, ?, ?, ?, ?, NULL)",
        (
            (
                term_id[t],
                t,
                len(p[0]),
                schema.pack(p[0], schema.KEYS),
                schema.pack(p[1]),
                schema.pack(p[2]),
            )
            for t, p in raw.items()
        ),
    )
    seal_rows(conn)
    lex = schema.hex_digest(digest)
    conn.execute(
        "INSERT INTO stats VALUES (1, ?, ?, ?, ?, ?)", (len(docs), total, len(raw), n_postings, lex)
    )
    return len(docs), total, len(raw), n_postings, lex


def seal_rows(conn: sqlite3.Connection) -> None:
    """Every row's CRC, then the secondary indexes (one sort each after a bulk insert
    instead of a b-tree insert a row): what a base and an overlay both finish with."""
    schema.with_crc(conn)
    conn.execute(f"UPDATE docs SET crc = rq_crc({schema.DOC_CRC})")
    conn.execute(f"UPDATE terms SET crc = rq_crc({schema.TERM_CRC})")
    for stmt in schema.INDEXES.strip().split(";"):
        if stmt.strip():
            conn.execute(stmt)


def verify_stats(conn: sqlite3.Connection, m: Manifest) -> None:
    """The stored aggregates recompute exactly from the rows, and equal the manifest's."""
    n, total = conn.execute("SELECT count(*), coalesce(sum(length), 0) FROM docs").fetchone()
    nt, npost = conn.execute("SELECT count(*), coalesce(sum(df), 0) FROM terms").fetchone()
    st = conn.execute("SELECT docs, total_length, terms, postings, lexical FROM stats").fetchone()
    want = (m.docs, m.total_length, m.terms, m.postings, m.lexical)
    if st is None or tuple(st) != want or (n, total, nt, npost) != want[:4]:
        raise BadGeneration(
            f"statistics do not recompute: rows {(n, total, nt, npost)}, stored {st}"
        )


def write_manifest(conn: sqlite3.Connection, m: Manifest) -> None:
    conn.execute("INSERT OR REPLACE INTO manifest VALUES (1, ?)", (m.to_json(),))
