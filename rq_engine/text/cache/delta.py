"""Exact deltas: an overlay that brings a base generation to the current rows of every
path changed since the base was built, written as a new small file (the base is
never copied or changed: 235 MB on Go std, against a few kilobytes an edit).

The base's and the current documents of those paths are merged by stable ID into
unchanged / added / removed / changed (by lexical fingerprint). An overlay holds
the rows of the added and changed documents with their postings, the rows of the
documents whose lexical projection is the same but whose graph facts moved (line,
span, container, language) without a posting — an edge- or line-only change
reuses every base posting — and `gone`: the base keys whose postings no longer
count (removed and changed documents, found through their reverse term records).
Every statistic of the merged whole (documents, total length, document
frequencies, terms, postings, the set digest) is recomputed exactly from those
rows; a term whose frequency reaches zero stops counting, and a negative one is
an error. Each delta rewrites the overlay from the base (the paths changed since
the base, not since the last overlay), so overlays never stack.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from rq_engine.core.record import Record, field
from rq_engine.text.bm25 import Bm25Profile, Weigher
from rq_engine.text.cache import schema
from rq_engine.text.cache.build import Analyzed, CacheLimit, Fact, analyze, seal_rows
from rq_engine.text.cache.manifest import BadGeneration, Limits


class NeedFull(Exception):
    """The delta cannot be applied exactly here (no room between keys): build in full."""


class Classified(Record):
    added: list[Fact] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[Fact] = field(default_factory=list)
    moved: list[Fact] = field(default_factory=list)  # same lexical projection, new facts
    unchanged: int = 0


class _Prior(Record):
    doc: int
    fp: bytes
    fact: Fact
    length: int
    terms: bytes
    twin: str | None
    row: tuple[object, ...]  # the base row's DOC_CRC columns


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


def _lexical(f: Fact) -> tuple[str, str, str, str]:
    """What Fact.document() projects (with the ID)."""
    return f.name, f.qualified, f.kind, f.path


def _prior_rows(conn: sqlite3.Connection, paths: list[str]) -> dict[str, _Prior]:
    out: dict[str, _Prior] = {}
    key_id: dict[int, str] = {}
    rows = _rows_in(conn, f"SELECT doc, {schema.DOC_CRC}, crc FROM docs WHERE path", paths)
    for r in rows:
        if schema.row_crc(*r[1:-1]) != r[-1]:
            raise BadGeneration(f"the prior row of {r[1]!r} is damaged")
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
        out[sid] = _Prior(doc, fp, fact, length, terms, twin, tuple(r[1:-1]))
    return out


def _new_key(base: sqlite3.Connection, sid: str, ids: list[str], keys: list[int]) -> int:
    """A key between the neighbours' keys in stable-ID order, among the base's documents
    and the overlay's additions so far (`ids`/`keys`, sorted); NeedFull when no room."""
    # Keys follow stable-ID order, so the neighbours by ID hold the neighbouring keys:
    # one probe of the ID index each (removed base documents count too: harmless)
    prev = base.execute(
        "SELECT doc FROM docs WHERE id < ? ORDER BY id DESC LIMIT 1", (sid,)
    ).fetchone()
    nxt = base.execute("SELECT doc FROM docs WHERE id > ? ORDER BY id LIMIT 1", (sid,)).fetchone()
    lo = int(prev[0]) if prev is not None else 0
    hi = int(nxt[0]) if nxt is not None else None
    j = bisect_left(ids, sid)
    if j:
        lo = max(lo, keys[j - 1])
    if j < len(ids):
        hi = keys[j] if hi is None else min(hi, keys[j])
    if hi is None:
        hi = lo + 2 * schema.GAP
    k = (lo + hi) // 2
    if k <= lo or k >= hi:
        raise NeedFull(f"no room for a key at {sid!r}")
    return k


def apply(
    base: sqlite3.Connection,
    out: sqlite3.Connection,
    paths: Iterable[str],
    current: list[Fact],
    profile: Bm25Profile,
    limits: Limits,
) -> tuple[Classified, tuple[int, int, int, int, str]]:
    """Write into `out` (an empty generation, inside the caller's transaction) the
    overlay that brings `base`'s documents of `paths` to `current` (their facts now).
    Returns the classification and the merged (documents, total length, terms,
    postings, lexical digest), recomputed from the rows written."""
    plist = sorted(set(paths))
    prior = _prior_rows(base, plist)
    weigh = Weigher(profile)
    # A fingerprint is a function of the lexical fields alone: a document whose fields
    # are the base's has the base's (the paths since the base accumulate: most of
    # their documents are unchanged, and analysis is ~0.1 ms a document)
    analyzed: dict[str, Analyzed] = {
        f.id: analyze(weigh, f)
        for f in current
        if f.id not in prior or _lexical(prior[f.id].fact) != _lexical(f)
    }
    fps = {f.id: analyzed[f.id].fp if f.id in analyzed else prior[f.id].fp for f in current}
    c = classify(prior, current, fps)
    gone = sorted(prior[sid].doc for sid in [*c.removed, *(f.id for f in c.changed)])
    keys = {f.id: prior[f.id].doc for f in current if f.id in prior}
    ids: list[str] = []
    added_keys: list[int] = []
    for f in sorted(c.added, key=lambda f: f.id):
        k = _new_key(base, f.id, ids, added_keys)
        keys[f.id] = k
        ids.append(f.id)
        added_keys.append(k)
    twins = {p.twin[1:] for sid in c.removed for p in [prior[sid]] if p.twin is not None}
    # the postings of additions and changes, with their rows
    raw: dict[str, tuple[list[int], list[int], list[int]]] = {}
    fresh = sorted([*c.added, *c.changed], key=lambda f: keys[f.id])
    for f in fresh:
        a = analyzed[f.id]
        for t, tf in a.tf.items():
            p = raw.setdefault(t, ([], [], []))
            p[0].append(keys[f.id])
            p[1].append(tf)
            p[2].append(a.length)
    term_id = {t: i for i, t in enumerate(sorted(raw), 1)}
    rows: dict[int, list[object]] = {}
    for f in fresh:
        a = analyzed[f.id]
        rev: list[int] = []
        for t, tf in a.tf.items():  # (the analyzer's order, as a full build writes it)
            rev.extend((term_id[t], tf))
        old = prior.get(f.id)
        if old is not None and old.twin is not None:
            twins.add(old.twin[1:])
        if a.twin is not None:
            twins.add(a.twin[1:])
        rows[keys[f.id]] = [
            f.id, f.name, f.qualified, f.kind, f.path, f.language, f.line, f.end_line,
            keys.get(f.parent) if f.parent is not None else None, a.length, a.fp, a.cn, a.cq,
            a.twin, None, schema.pack(rev),
        ]  # fmt: skip
    for f in c.moved:  # new facts over the base's lexical columns; the postings stay there
        r = list(prior[f.id].row)
        r[:9] = [
            f.id, f.name, f.qualified, f.kind, f.path, f.language, f.line, f.end_line,
            keys.get(f.parent) if f.parent is not None else None,
        ]  # fmt: skip
        r[15] = b""
        rows[keys[f.id]] = r
    _derive(base, rows, set(gone), twins)
    out.executemany(
        f"INSERT INTO docs VALUES ({','.join('?' * 17)}, NULL)",
        [(k, *r) for k, r in sorted(rows.items())],
    )
    out.executemany("INSERT INTO gone VALUES (?)", [(k,) for k in gone])
    out.executemany(
        "INSERT INTO terms VALUES (?, ?, ?, ?, ?, ?, NULL)",
        [
            (term_id[t], t, len(p[0]), schema.pack(p[0], schema.KEYS), schema.pack(p[1]),
             schema.pack(p[2]))
            for t, p in raw.items()
        ],
    )  # fmt: skip
    seal_rows(out)
    stats = merged_stats(base, out)
    n_docs, _, n_terms, n_post, _ = stats
    if n_docs > limits.docs or n_terms > limits.terms or n_post > limits.postings:
        raise CacheLimit(f"{n_docs:,} documents, {n_terms:,} terms, {n_post:,} postings")
    out.execute("INSERT INTO stats VALUES (1, ?, ?, ?, ?, ?)", stats)
    return c, stats


def _derive(
    base: sqlite3.Connection, rows: dict[int, list[object]], gone: set[int], twins: set[str]
) -> None:
    """A derived twin copies the first source of its key by stable ID, in the merged view:
    set it on the overlay's rows of the keys touched, and override the base rows whose
    source changed (their postings stay the base's)."""
    masked = gone | rows.keys()
    for tk in sorted(twins):
        srcs = [
            (int(k), str(i))
            for k, i in base.execute("SELECT doc, id FROM docs WHERE twin = ?", ("s" + tk,))
            if k not in masked
        ]
        srcs += [(k, str(r[0])) for k, r in rows.items() if r[13] == "s" + tk]
        src = min(srcs)[1] if srcs else None
        for r in rows.values():
            if r[13] == "d" + tk:
                r[14] = src
        for row in base.execute(
            f"SELECT doc, {schema.DOC_CRC} FROM docs WHERE twin = ?", ("d" + tk,)
        ).fetchall():
            if row[0] not in masked and row[15] != src:
                r = list(row[1:])
                r[14], r[15] = src, b""
                rows[int(row[0])] = r


def merged_stats(base: sqlite3.Connection, over: sqlite3.Connection) -> tuple[int, int, int, int, str]:  # fmt: skip
    """The statistics of a base with an overlay, recomputed from the overlay's rows and the
    base's rows it replaces (the base's own were checked when it was published):
    (documents, total length, terms, postings, lexical digest). Inconsistent rows are a
    BadGeneration."""
    st = base.execute("SELECT docs, total_length, terms, postings, lexical FROM stats").fetchone()
    n_docs, total, n_terms, n_post = (int(v) for v in st[:4])
    digest = int(st[4], 16)
    gone = [int(r[0]) for r in over.execute("SELECT doc FROM gone")]
    dec: dict[int, int] = {}  # base term -> its postings that no longer count
    took = _rows_in(base, "SELECT id, length, fp, terms FROM docs WHERE doc", gone)
    if len(took) != len(gone):
        raise BadGeneration("the overlay takes back a document its base does not have")
    for sid, length, fp, terms in took:
        n_docs -= 1
        total -= int(length)
        digest = schema.sub_digest(digest, schema.doc_hash(sid, fp))
        rec = schema.unpack(terms)
        for j in range(0, len(rec), 2):
            dec[rec[j]] = dec.get(rec[j], 0) + 1
    mine = over.execute("SELECT doc, id, length, fp FROM docs").fetchall()
    inbase = {int(r[0]) for r in _rows_in(base, "SELECT doc FROM docs WHERE doc", [r[0] for r in mine])}  # fmt: skip
    gset = set(gone)
    length_of: dict[int, int] = {}
    for doc, sid, length, fp in mine:
        if doc in gset or doc not in inbase:  # its postings are the overlay's
            n_docs += 1
            total += int(length)
            digest = schema.add_digest(digest, schema.doc_hash(sid, fp))
            length_of[doc] = int(length)
    # per term: the base's frequency, less what is gone, plus the overlay's postings
    df: dict[str, int] = {}
    for tid, text in _rows_in(base, "SELECT term, text FROM terms WHERE term", sorted(dec)):
        df[text] = -dec.pop(tid)
    if dec:
        raise BadGeneration("a document's reverse record names a term its base does not have")
    for text, n, docs, dls in over.execute("SELECT text, df, docs, dls FROM terms"):
        keys = schema.unpack(docs, schema.KEYS)
        if n != len(keys) or any(
            length_of.get(k) != dl for k, dl in zip(keys, schema.unpack(dls), strict=True)
        ):
            raise BadGeneration(f"the overlay's postings of {text!r} are inconsistent")
        df[text] = df.get(text, 0) + n
    before = dict(_rows_in(base, "SELECT text, df FROM terms WHERE text", sorted(df)))
    for t, change in df.items():
        was = int(before.get(t, 0))
        if was + change < 0:
            raise BadGeneration(f"term {t!r} would have {was + change} postings")
        n_terms += (was + change > 0) - (was > 0)
        n_post += change
    if n_docs < 0 or total < 0 or (n_docs == 0) != (n_post == 0):
        raise BadGeneration("the overlay makes the statistics impossible")
    return n_docs, total, n_terms, n_post, schema.hex_digest(digest)


def _rows_in(conn: sqlite3.Connection, sql: str, values: list[Any]) -> list[Any]:
    """The rows of `sql` (ending in a column) IN `values`, asked 500 at a time."""
    out: list[Any] = []
    for i in range(0, len(values), 500):
        chunk = values[i : i + 500]
        out += conn.execute(f"{sql} IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    return out
