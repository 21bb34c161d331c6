"""The typed manifest of a persisted text-ranker generation, and its validation.

A generation is bound to one state of one repository's rows in one index
(`graph`: "rq-index:<store uuid>:<repository id>:<text_seq>" — the index writes
`text_seq` in the same transaction as every symbol change, so the graph that
`text.source.realize` would build from that state is exactly named by it) and to
one lexical projection (`lexical`: the additive set digest of its documents,
which a delta updates exactly). Every field is checked on open: an unknown
format major, an impossible count or a checksum that does not recompute is a
`BadGeneration`, never a query. Stdlib only.
"""

from __future__ import annotations

import json
import re
from importlib import import_module

from rq_engine.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
else:
    Any = object


def _builtin_sha256() -> Any:
    """The built-in SHA-256 (hashlib's OpenSSL start costs ~3 ms of a cached text
    query): `_sha256` to 3.11, `_sha2` from 3.12; hashlib on any other build."""
    for name in ("_sha256", "_sha2"):
        try:
            return import_module(name).sha256
        except (ImportError, AttributeError):
            pass
    import hashlib

    return hashlib.sha256


_sha256 = _builtin_sha256()


FORMAT_MAJOR = 2  # 2: overlays (a delta is a file over its base, never a copy of it)
BUILDS = ("full", "delta", "edge")
STATES = ("building", "complete")


class BadGeneration(Exception):
    """A generation that must not be served (corrupt, incomplete, incompatible, mismatched)."""


class Limits(Record):
    """Checked before publication: a generation past any of them is never published."""

    docs: int = 2_000_000  # (a full build's memory grows with it: Go std's 261k took 0.8 GB)
    terms: int = 10_000_000
    postings: int = 200_000_000
    bytes: int = 8 << 30


class Manifest(Record):
    format: int
    analyzer: str
    profile: str
    repository: str
    graph: str  # rq-index:<store>:<repository id>:<seq>
    seq: int
    lexical: str  # additive set digest of (stable ID, fingerprint), 64 hex digits
    docs: int
    total_length: int
    terms: int
    postings: int
    limits: Limits
    build: str  # full | delta | edge
    parent: str | None  # an overlay's base: its file name (None: this is a base)
    state: str  # building | complete
    base: str | None = None  # an overlay's base: the checksum of its manifest
    keys: str | None = None  # an overlay's key seal (schema.key_seal): nothing dropped or added

    def body(self) -> dict[str, Any]:
        lim = self.limits
        d: dict[str, Any] = {f: getattr(self, f) for f in self._fields}
        d["limits"] = {
            "docs": lim.docs,
            "terms": lim.terms,
            "postings": lim.postings,
            "bytes": lim.bytes,
        }
        return d

    def checksum(self) -> str:
        blob = json.dumps(self.body(), sort_keys=True, separators=(",", ":"))
        return str(_sha256(blob.encode()).hexdigest())

    def to_json(self) -> str:
        d = self.body()
        d["checksum"] = self.checksum()
        return json.dumps(d, sort_keys=True, separators=(",", ":"))

    def complete(self) -> Manifest:
        d = {f: getattr(self, f) for f in self._fields}
        d["state"] = "complete"
        return Manifest(**d)


_INT_FIELDS = ("format", "seq", "docs", "total_length", "terms", "postings")
_STR_FIELDS = ("analyzer", "profile", "repository", "graph", "lexical", "build", "state")


def parse(text: str) -> Manifest:
    """A manifest from its stored JSON, every field and its checksum verified."""
    try:
        d = json.loads(text)
    except ValueError as e:
        raise BadGeneration(f"manifest is not JSON ({e})") from None
    if not isinstance(d, dict):
        raise BadGeneration("manifest is not an object")
    fmt = d.get("format")
    if fmt != FORMAT_MAJOR:
        raise BadGeneration(f"unknown cache format major {fmt!r} (this rq reads {FORMAT_MAJOR})")
    for f in _INT_FIELDS:
        v = d.get(f)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise BadGeneration(f"manifest {f} is {v!r}, not a count")
    for f in _STR_FIELDS:
        if not isinstance(d.get(f), str) or not d[f]:
            raise BadGeneration(f"manifest {f} is {d.get(f)!r}")
    if d["build"] not in BUILDS or d["state"] not in STATES:
        raise BadGeneration(f"manifest build/state {d['build']!r}/{d['state']!r}")
    if not _hex64(d["lexical"]):
        raise BadGeneration("manifest lexical digest is malformed")
    lim = d.get("limits")
    if not isinstance(lim, dict) or set(lim) != {"docs", "terms", "postings", "bytes"}:
        raise BadGeneration("manifest limits are malformed")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in lim.values()):
        raise BadGeneration("manifest limits are malformed")
    parent, base, keys = d.get("parent"), d.get("base"), d.get("keys")
    if d["build"] == "full":
        if parent is not None or base is not None or keys is not None:
            raise BadGeneration("a full build's manifest names a base")
    elif not (isinstance(parent, str) and parent and isinstance(base, str) and _hex64(base)):
        raise BadGeneration(f"a {d['build']} manifest does not name its base")
    elif not (isinstance(keys, str) and _SEAL.fullmatch(keys)):
        raise BadGeneration(f"a {d['build']} manifest's key seal is malformed")
    m = Manifest(
        format=fmt,
        analyzer=d["analyzer"],
        profile=d["profile"],
        repository=d["repository"],
        graph=d["graph"],
        seq=d["seq"],
        lexical=d["lexical"],
        docs=d["docs"],
        total_length=d["total_length"],
        terms=d["terms"],
        postings=d["postings"],
        limits=Limits(**lim),
        build=d["build"],
        parent=parent,
        state=d["state"],
        base=base,
        keys=keys,
    )
    if d.get("checksum") != m.checksum():
        raise BadGeneration("manifest checksum does not match its content")
    check_bounds(m)
    return m


_SEAL = re.compile(r"\d+:\d+:[0-9a-f]{8}")


def _hex64(s: str) -> bool:
    return len(s) == 64 and all(c in "0123456789abcdef" for c in s)


def check_bounds(m: Manifest) -> None:
    """Impossible or over-limit values: never served, never published."""
    lim = m.limits
    if m.docs > lim.docs or m.terms > lim.terms or m.postings > lim.postings:
        raise BadGeneration(
            f"over the cache limits ({m.docs} docs, {m.terms} terms, {m.postings} postings)"
        )
    if (m.docs == 0) != (m.postings == 0) or m.terms > m.postings:
        raise BadGeneration("manifest counts are inconsistent")
    if m.docs and m.total_length < m.docs:
        raise BadGeneration("manifest total length is smaller than its document count")


def graph_token(store: str, repository_id: int, seq: int) -> str:
    return f"rq-index:{store}:{repository_id}:{seq}"
