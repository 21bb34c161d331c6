"""The private SQLite schema of one text-ranker generation file (format major 2), and
the packed forms of its postings and reverse term records.

Every file is immutable once published. A full build is a *base*: every document,
term and posting. A delta is an *overlay* on one base, in the same schema: the
rows of the documents that differ from the base (added, changed, or only moved),
the postings of the added and changed ones, `gone` (the base keys whose postings
no longer count: removed or changed documents) and the statistics of the merged
whole. Documents are keyed by an order-preserving integer (`doc`): a full build
spaces them GAP apart in stable-ID order and an overlay's additions take keys
between their neighbours', so sorting keys sorts stable IDs and every tie the
ranker breaks by stable ID breaks the same way in the merged view. SQLite stores
facts; rq_engine.text.bm25 computes every score (no FTS, no SQL ranking).
"""

from __future__ import annotations

import zlib
from array import array

from rq_engine.text import lexical
from rq_engine.text.cache.manifest import FORMAT_MAJOR as FORMAT_MAJOR

GAP = 1 << 24  # room for ~24 inserts at one spot before a delta gives way to a full build

DDL = """
CREATE TABLE manifest (one INTEGER PRIMARY KEY CHECK (one = 1), body TEXT NOT NULL);
CREATE TABLE docs (
    doc INTEGER PRIMARY KEY,        -- order-preserving key (stable-ID order)
    id TEXT NOT NULL UNIQUE,        -- the stable node ID
    name TEXT NOT NULL, qualified TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
    language TEXT, line INTEGER NOT NULL, end_line INTEGER,
    parent INTEGER,                 -- the containing document; NULL: the file
    length INTEGER NOT NULL,        -- weighted length under the profile
    fp BLOB NOT NULL,               -- sha256 of the canonical lexical encoding
    cn TEXT NOT NULL, cq TEXT NOT NULL,  -- compact name / qualified (exact protection)
    twin TEXT, derived TEXT,        -- twin key; the stable ID of its source when derived
    terms BLOB NOT NULL,            -- reverse term records: packed int32 (term, tf) pairs;
                                    -- empty in an overlay row whose postings stay the base's
    crc INTEGER                     -- row_crc of the row's DOC_CRC columns
);
CREATE TABLE terms (
    term INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE,
    df INTEGER NOT NULL CHECK (df > 0),
    docs BLOB NOT NULL,             -- packed int64 doc keys, ascending
    tfs BLOB NOT NULL,              -- packed int32 weighted tf, same order
    dls BLOB NOT NULL,              -- packed int32 document length, same order
    crc INTEGER                     -- row_crc of the row's TERM_CRC columns
);
CREATE TABLE gone (doc INTEGER PRIMARY KEY);  -- an overlay's: base postings that no longer count
CREATE TABLE stats (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    docs INTEGER NOT NULL, total_length INTEGER NOT NULL,
    terms INTEGER NOT NULL, postings INTEGER NOT NULL,
    lexical TEXT NOT NULL           -- the additive set digest (manifest.lexical)
                                    -- (an overlay's: of the merged whole)
);
"""

# Built after a full build's bulk insert (one sort each instead of a b-tree insert a row).
INDEXES = """
CREATE INDEX docs_path ON docs(path);
CREATE INDEX docs_parent ON docs(parent) WHERE parent IS NOT NULL;
CREATE INDEX docs_cn ON docs(cn) WHERE cn != '';
CREATE INDEX docs_cq ON docs(cq) WHERE cq != '';
CREATE INDEX docs_twin ON docs(twin) WHERE twin IS NOT NULL;
"""

# Every row carries a CRC-32 of its columns, checked when a query reads the row: a
# generation damaged inside a valid SQLite file (a flipped bit in a posting list)
# is never served, at the cost of one C-level checksum per row read.
DOC_CRC = (
    "id, name, qualified, kind, path, language, line, end_line, parent, length, fp, cn, cq,"
    " twin, derived, terms"
)
TERM_CRC = "text, df, docs, tfs, dls"


def row_crc(*vals: object) -> int:
    """CRC-32 over typed values (the same from Python and as SQL function `rq_crc`).
    One crc32 over the joined parts: a query checks thousands of rows."""
    parts = []
    for v in vals:
        if v is None:
            parts.append(b"\x00N")
        elif isinstance(v, bytes):
            parts.append(b"\x00B" + v)
        elif isinstance(v, int):
            parts.append(b"\x00I" + str(v).encode())
        else:
            parts.append(b"\x00S" + str(v).encode("utf-8", "surrogatepass"))
    return zlib.crc32(b"".join(parts))


def with_crc(conn: object) -> None:
    """Register `rq_crc(...)` on a writer's connection."""
    conn.create_function("rq_crc", -1, row_crc, deterministic=True)  # type: ignore[attr-defined]


_MOD = 1 << 256


def doc_hash(doc_id: str, fp: bytes) -> int:
    """One document's share of the set digest."""
    import hashlib

    return int.from_bytes(hashlib.sha256(doc_id.encode("utf-8") + b"\x00" + fp).digest(), "big")


def add_digest(digest: int, h: int) -> int:
    return (digest + h) % _MOD


def sub_digest(digest: int, h: int) -> int:
    return (digest - h) % _MOD


def hex_digest(digest: int) -> str:
    return f"{digest:064x}"


def fingerprint(d: lexical.LexicalDocument) -> bytes:
    import hashlib

    return hashlib.sha256(d.encode()).digest()


# Document keys need 64 bits; term ids, weighted tfs and lengths fit in 32.
KEYS = "q"
SMALL = "i"


def pack(values: array[int] | list[int], code: str = SMALL) -> bytes:
    return array(code, values).tobytes()


def unpack(blob: bytes, code: str = SMALL) -> array[int]:
    a = array(code)
    a.frombytes(blob)
    return a


def key_seal(gone: list[int], mine: list[int]) -> str:
    """An overlay's seal over its key sets (sorted): the counts and a CRC-32 of both, kept
    in the manifest, so a `gone` or row dropped or added is never served (row CRCs
    cannot see a missing row)."""
    return (
        f"{len(gone)}:{len(mine)}:{zlib.crc32(pack(mine, KEYS), zlib.crc32(pack(gone, KEYS))):08x}"
    )
