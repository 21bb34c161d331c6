"""The lexical document contract: analyzer rq-analyzer/2, canonical projection, fingerprints.

A node's lexical document is exactly (stable ID, name, qualified name, kind,
source path). This module owns how those fields become terms, how a document
is canonically encoded and digested, and the lexical-projection identity.
Stdlib only; must not import the store, the CLI or anything with a UI.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from rq_engine.core.record import Record
from rq_engine.text.segment import ASCII_IDENT, ASCII_PART, identifiers, normalize, segment

#: Bump when anything below changes the terms a field produces (segmentation,
#: normalisation, kind aliases, bounds): a new analyzer is a new lexical identity.
ANALYZER_ID = "rq-analyzer/2"  # 2: words cut by core/scoring/words.word_starts
#: Version of the canonical document encoding (field order, null/empty rules).
DOCUMENT_SCHEMA = "rq-lexdoc/1"

FIELDS = ("name", "qualified", "kind", "path")

# Bounds applied to each projected field before analysis (code points after NFC).
# A minified bundle can carry a 100 kB "name"; 256 keeps every real identifier
# whole (the longest name in the nine corpora is ~90) and caps per-document work.
FIELD_MAX_CHARS = {"id": 2048, "name": 256, "qualified": 1024, "kind": 32, "path": 1024}
MAX_TERMS_PER_FIELD = 64
MAX_TERM_CHARS = 64

# What a developer types for a kind, by language habit (`func` in Go, `fn` in
# Rust, `def` in Python and Ruby, `const`, `mod`, ...). The kind field of a
# document yields the kind itself plus these aliases.
KIND_TERMS: dict[str, tuple[str, ...]] = {
    "function": ("function", "func", "fn", "def"),
    "method": ("method", "func", "fn", "def"),
    "class": ("class",),
    "struct": ("struct",),
    "enum": ("enum",),
    "union": ("union",),
    "trait": ("trait",),
    "interface": ("interface",),
    "type": ("type",),
    "constant": ("constant", "const"),
    "macro": ("macro",),
    "field": ("field", "property"),
    "variable": ("variable", "var", "let"),
    "module": ("module", "mod", "namespace", "package"),
    "file": ("file",),
}


def _fold(s: str) -> str:
    return s.casefold()[:MAX_TERM_CHARS]


@functools.lru_cache(maxsize=1 << 16)
def word_terms(ident: str) -> tuple[tuple[str, ...], str | None]:
    """(parts, compound) of one identifier: `QuerySet` -> (["query", "set"], "queryset").

    The compound (all parts joined) is emitted only when there is more than one
    part, so a query word `queryset` or `deepcopy` meets the camel- or
    snake-cased spelling of the same name.
    """
    if ident.isascii():
        parts = tuple(p.lower()[:MAX_TERM_CHARS] for p in ASCII_PART.findall(ident))
    else:
        parts = tuple(_fold(p) for p in segment(ident))
    compound = _fold("".join(parts)) if len(parts) > 1 else None
    return parts, compound


def analyze_text(text: str) -> list[str]:
    """Terms of free text (a name, a qualified name): identifiers -> parts + compounds."""
    out: list[str] = []
    for ident in identifiers(normalize(text)):
        parts, compound = word_terms(ident)
        out.extend(parts)
        if compound:
            out.append(compound)
    return out


def compact_parts(text: str) -> list[str]:
    """The parts of a text in order, compounds left out: `QuerySet.get` -> query, set, get."""
    return [p for ident in identifiers(normalize(text)) for p in word_terms(ident)[0]]


def compact(text: str) -> str:
    """All parts of a text joined, compounds left out: `ReadAll`, `read_all`, `read all` -> `readall`."""
    return "".join(p for ident in identifiers(normalize(text)) for p in word_terms(ident)[0])


def path_text(path: str) -> str:
    """The searchable form of a path: directories and the file's stem (extension dropped).

    The extension names the language, which every file of that language shares;
    `\\` is a separator too, so a Windows-made graph.json reads the same.
    """
    p = path.replace("\\", "/")
    head, _, base = p.rpartition("/")
    dot = base.rfind(".")
    if dot > 0:
        base = base[:dot]
    return f"{head}/{base}" if head else base


@functools.lru_cache(maxsize=4096)
def _path_terms(path: str) -> tuple[str, ...]:
    # every symbol of a file shares its path: analyze it once
    return tuple(analyze_text(path_text(path)))


def analyze_field(field: str, value: str | None) -> list[str]:
    """The bounded term list of one projected field."""
    if value is None:
        return []
    if field == "kind":
        terms = list(KIND_TERMS.get(value.casefold(), (_fold(value),)))
    elif field == "path":
        terms = list(_path_terms(value))
    else:
        terms = analyze_text(value)
    return terms[:MAX_TERMS_PER_FIELD]


_JSON_PLAIN = re.compile(r'[^"\\\x00-\x1f]*\Z')


class LexicalDocument(Record):
    """The canonical projection of one node: what the text rankers may read, nothing else.

    Fields are NFC-normalised and bounded (FIELD_MAX_CHARS) by `project`; None
    means the field is absent, which encodes differently from "".
    """

    id: str
    name: str | None
    qualified: str | None
    kind: str | None
    path: str | None

    def field(self, name: str) -> str | None:
        value: str | None = getattr(self, name)
        return value

    def encode(self) -> bytes:
        """Canonical bytes: a JSON array in fixed field order, UTF-8, no whitespace."""
        row = [DOCUMENT_SCHEMA, self.id, self.name, self.qualified, self.kind, self.path]
        if all(v is None or _JSON_PLAIN.match(v) for v in row):
            # What json.dumps writes for strings with nothing to escape (a cache build
            # encodes every document: ~5x faster; the golden tests hold them equal).
            return ("[" + ",".join("null" if v is None else f'"{v}"' for v in row) + "]").encode()
        import json

        return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def fingerprint(self) -> str:
        import hashlib

        return hashlib.sha256(self.encode()).hexdigest()

    def terms(self) -> dict[str, list[str]]:
        """Per-field term lists under ANALYZER_ID."""
        return {f: analyze_field(f, self.field(f)) for f in FIELDS}

    def lengths(self) -> dict[str, int]:
        """A field's length is its words as written: parts, not compounds or kind
        aliases (`QuerySet` is 2, `function` is 1), at most MAX_TERMS_PER_FIELD."""
        out = {}
        for f in FIELDS:
            value = self.field(f)
            if value is None:
                out[f] = 0
            elif f == "kind":
                out[f] = 1
            else:
                text = path_text(value) if f == "path" else value
                n = sum(len(word_terms(i)[0]) for i in identifiers(normalize(text)))
                out[f] = min(n, MAX_TERMS_PER_FIELD)
        return out

    def field_counts(self) -> dict[str, Counter[str]]:
        return {f: Counter(ts) for f, ts in self.terms().items()}


class FieldAnalyzer:
    """A memo of rq-analyzer/2 for building an index over many documents at once.

    Gives exactly `LexicalDocument.terms()` and `.lengths()` (a test holds them
    equal) at a fraction of the cost: names, container prefixes and paths repeat
    across a repository (every symbol of a file shares its path; siblings share
    their container), so each distinct string is analyzed once. A qualified name
    that ends in `<separator><name>` is the prefix's terms plus the name's. Built
    per index and dropped with it, so the memo never outlives one build.
    """

    __slots__ = ("_text", "_path")

    def __init__(self) -> None:
        self._text: dict[str, tuple[tuple[str, ...], str, int]] = {}
        self._path: dict[str, tuple[tuple[str, ...], int]] = {}

    def text(self, s: str) -> tuple[tuple[str, ...], str, int]:
        """(terms, compact, number of parts) of free text, unbounded."""
        r = self._text.get(s)
        if r is None:
            terms: list[str] = []
            parts: list[str] = []
            for ident in identifiers(normalize(s)):
                ps, comp = word_terms(ident)
                terms.extend(ps)
                parts.extend(ps)
                if comp:
                    terms.append(comp)
            r = (tuple(terms), "".join(parts), len(parts))
            self._text[s] = r
        return r

    def qualified(self, q: str, name: str | None) -> tuple[tuple[str, ...], str, int]:
        n = len(name) if name else 0
        if (
            n
            and len(q) > n
            and name is not None
            and q.endswith(name)
            and q.isascii()
            and not ASCII_IDENT.match(q[-n - 1])
        ):
            pt, pc, pn = self.text(q[:-n])
            nt, nc, nn = self.text(name)
            return pt + nt, pc + nc, pn + nn
        return self.text(q)

    def path(self, p: str) -> tuple[tuple[str, ...], int]:
        r = self._path.get(p)
        if r is None:
            terms, _, n = self.text(path_text(p))
            r = (terms[:MAX_TERMS_PER_FIELD], min(n, MAX_TERMS_PER_FIELD))
            self._path[p] = r
        return r

    def fields(self, d: LexicalDocument) -> tuple[tuple[str, ...], ...]:
        """Term tuples in FIELDS order (name, qualified, kind, path), bounded."""
        name = self.text(d.name)[0][:MAX_TERMS_PER_FIELD] if d.name is not None else ()
        qual = (
            self.qualified(d.qualified, d.name)[0][:MAX_TERMS_PER_FIELD]
            if d.qualified is not None
            else ()
        )
        kind = tuple(analyze_field("kind", d.kind))
        path = self.path(d.path)[0] if d.path is not None else ()
        return (name, qual, kind, path)

    def lengths(self, d: LexicalDocument) -> tuple[int, int, int, int]:
        """Field lengths in FIELDS order, as `LexicalDocument.lengths()` defines them."""
        m = MAX_TERMS_PER_FIELD
        name = min(self.text(d.name)[2], m) if d.name is not None else 0
        qual = min(self.qualified(d.qualified, d.name)[2], m) if d.qualified is not None else 0
        kind = 1 if d.kind is not None else 0
        path = self.path(d.path)[1] if d.path is not None else 0
        return (name, qual, kind, path)

    def own(
        self, d: LexicalDocument
    ) -> tuple[tuple[str, ...], tuple[str, ...], int, int, str, str]:
        """Name and qualified at once: (name terms, qualified terms, name length,
        qualified length, compact name, compact qualified) — what differs per
        document; kind and path are shared and asked for separately."""
        m = MAX_TERMS_PER_FIELD
        if d.name is not None:
            nt, nc, nn = self.text(d.name)
        else:
            nt, nc, nn = (), "", 0
        if d.qualified is not None:
            qt, qc, qn = self.qualified(d.qualified, d.name)
        else:
            qt, qc, qn = (), "", 0
        return nt[:m], qt[:m], min(nn, m), min(qn, m), nc, qc

    def compacts(self, d: LexicalDocument) -> tuple[str, str]:
        """(compact name, compact qualified name): the exact-match keys of a document."""
        name = self.text(d.name)[1] if d.name is not None else ""
        qual = self.qualified(d.qualified, d.name)[1] if d.qualified is not None else ""
        return name, qual


def _bounded(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    if value.isascii():  # ASCII is already NFC
        return value[: FIELD_MAX_CHARS[field]]
    return unicodedata.normalize("NFC", value)[: FIELD_MAX_CHARS[field]]


def normalize_path(path: str) -> str:
    """`/`-separated, no `./` or empty segments: `.\\src//a.py` and `src/a.py` project alike."""
    if not (
        "\\" in path
        or "//" in path
        or "/./" in path
        or path.startswith(("./", "/"))
        or path.endswith(("/", "/."))
        or path == "."
    ):
        return path  # already normal: the common case costs a few scans
    return _normalize_path_general(path)


def _normalize_path_general(path: str) -> str:
    segs = [s for s in path.replace("\\", "/").split("/") if s and s != "."]
    return "/".join(segs)


def project(
    id: str, name: str | None, qualified: str | None, kind: str | None, path: str | None
) -> LexicalDocument:
    """The typed canonical projection of one node (NFC, bounded, path normalised).

    The ID is kept verbatim: it is the key, and the graph already checked it.
    """
    if len(id) > FIELD_MAX_CHARS["id"]:
        raise ValueError(f"stable ID longer than {FIELD_MAX_CHARS['id']} characters")
    return LexicalDocument(
        id=id,
        name=_bounded(name, "name"),
        qualified=_bounded(qualified, "qualified"),
        kind=_bounded(kind, "kind"),
        path=_bounded(None if path is None else normalize_path(path), "path"),
    )


class DuplicateDocument(ValueError):
    """Two documents claim one stable ID: a validation error, never resolved by a pick."""


def projection_identity(docs: Iterable[LexicalDocument]) -> str:
    """Digest of the sorted (stable ID, fingerprint) manifest, under this analyzer.

    Independent of input order; includes ANALYZER_ID, so a changed analyzer is a
    changed identity even when every document's bytes are the same.
    """
    manifest: dict[str, str] = {}
    for d in docs:
        if d.id in manifest:
            raise DuplicateDocument(f"duplicate stable ID {d.id!r}")
        manifest[d.id] = d.fingerprint()
    import hashlib

    h = hashlib.sha256()
    h.update(f"rq-lexical/1\n{ANALYZER_ID}\n{DOCUMENT_SCHEMA}\n{len(manifest)}\n".encode())
    for doc_id in sorted(manifest):
        h.update(doc_id.encode("utf-8"))
        h.update(b"\x00")
        h.update(manifest[doc_id].encode("ascii"))
        h.update(b"\n")
    return h.hexdigest()


def query_terms(text: str) -> tuple[list[str], dict[str, int], list[tuple[str, int]]]:
    """Analyze a query: (units, term -> bitmask of the units the term covers, words).

    `words` are the query's identifiers as typed (case-folded) with the units
    each one spells, in order: what the exact-name feature compares names with.

    Units are the query's distinct parts (`sha256` -> sha, 256). Scoring terms
    are the units plus compounds: each word's own compound (`sha256`), each
    adjacent pair of words joined (`deep copy` -> `deepcopy`) and, for three or
    more words, the whole query joined (`template does not exist` ->
    `templatedoesnotexist`). A compound covers the units of its words.
    """
    words = [word_terms(w) for w in identifiers(normalize(text))]
    units: list[str] = []
    for parts, _ in words:
        for p in parts:
            if p not in units:
                units.append(p)
    bit = {u: 1 << i for i, u in enumerate(units)}
    cover: dict[str, int] = {u: bit[u] for u in units}

    def mask(ws: list[tuple[tuple[str, ...], str | None]]) -> int:
        m = 0
        for parts, _ in ws:
            for p in parts:
                m |= bit[p]
        return m

    def add(term: str, m: int) -> None:
        cover[term] = cover.get(term, 0) | m

    for parts, compound in words:
        if compound:
            add(compound, mask([(parts, compound)]))
    for a, b in zip(words, words[1:], strict=False):
        if a[0] and b[0]:
            add(_fold("".join(a[0] + b[0])), mask([a, b]))
    if sum(1 for ps, _ in words if ps) >= 3:
        add(_fold("".join(p for ps, _ in words for p in ps)), mask(words))
    typed = [
        (_fold(ident), mask([w]))
        for ident, w in zip(identifiers(normalize(text)), words, strict=True)
        if w[0]
    ]
    return units, cover, typed
