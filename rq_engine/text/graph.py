"""The code graph realization rq.graph/1: nodes, `contains` edges, stable IDs, validation.

One repository's definitions as a graph: a node per file and per symbol,
`contains` edges (file -> top-level symbol, symbol -> nested symbol). A
realization is validated once (duplicate IDs, dangling edges, bounds, a
containment forest) and then immutable; rankers and the structural rerank
read only validated realizations. Sources: the live index (`realize`, in
rq_engine.text.source) or a graph.json (`load`, in rq_engine.text.graphjson,
which also writes one). Stdlib + rq_engine.core + rq_engine.text only; must not
import the store or any face.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cached_property

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.record import Record
from rq_engine.text import lexical

# A cached text query reads only Node from here: hashlib and json are imported by
# the functions that hash a graph (with tempfile and pathlib, which graphjson's
# reading and writing import the same way, ~8 ms together).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "rq.graph/1"
FILE_KIND = "file"
CONTAINS = "contains"

# Hard bounds a graph must respect to load at all (a bad file is an error, not
# a truncation): generous enough for any real repository, small enough that a
# hostile graph.json cannot make one field cost megabytes.
MAX_ID_CHARS = lexical.FIELD_MAX_CHARS["id"]
MAX_TEXT_CHARS = 4096
MAX_KIND_CHARS = 32
MAX_LINE = 2**31 - 1
MAX_NODES = 5_000_000

_ID_ESCAPES = {"%": "%25", "|": "%7C", "~": "%7E"}


class GraphError(RqError):
    """A graph that fails validation: exit 74 with one line saying what is wrong."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.IOERR)


_NEEDS_ESCAPE = re.compile(r"[%|~\x00-\x1f\x7f]")


def escape_component(text: str) -> str:
    """Escape `%`, `|`, `~` and control characters so the ID's `|` and `~N` stay unambiguous."""
    if not _NEEDS_ESCAPE.search(text):
        return text
    out = []
    for c in text:
        if c in _ID_ESCAPES:
            out.append(_ID_ESCAPES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"%{ord(c):02X}")
        else:
            out.append(c)
    return "".join(out)


def stable_id(repository: str, path: str, kind: str, qualified: str, nth: int = 1) -> str:
    """`<identity>|<path>|<kind>|<qualified>` plus `~N` for the N-th (N >= 2) duplicate.

    Never a line or a row id: editing a body, which shifts every line below it,
    changes no ID. Duplicates are numbered in line order within one file.
    """
    base = "|".join(escape_component(x) for x in (repository, path, kind, qualified))
    return fit_id(base if nth == 1 else f"{base}~{nth}")


# How a cut ID ends: `~#` never occurs in a whole one (`~` is escaped in every
# component and only starts the `~N` of a duplicate), then 32 hex digits.
_CUT_TAIL = 2 + 32


def fit_id(nid: str) -> str:
    """`nid` itself, or when it is longer than MAX_ID_CHARS (a path 1,000 directories
    deep, a chain of nested scopes from an older index) its start and `~#` and a
    digest of all of it: still unique, still stable, and one such node never fails
    the repository's graph."""
    if len(nid) <= MAX_ID_CHARS:
        return nid
    import hashlib

    digest = hashlib.blake2b(nid.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"{nid[: MAX_ID_CHARS - _CUT_TAIL]}~#{digest}"


def file_id(repository: str, path: str) -> str:
    return stable_id(repository, path, FILE_KIND, "")


class Node(Record):
    id: str
    kind: str
    name: str
    qualified: str
    path: str
    line: int
    end_line: int | None
    language: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "qualified": self.qualified,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "language": self.language,
        }

    def document(self) -> lexical.LexicalDocument:
        return lexical.project(self.id, self.name, self.qualified, self.kind, self.path)


class Edge(Record):
    src: str
    dst: str
    kind: str = CONTAINS

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "from": self.src, "to": self.dst}


class Graph:
    """A validated, immutable realization. Nodes sorted by ID, edges by (from, to, kind).

    `by_id` is this realization's stable-ID -> node map (the only way rankers
    resolve postings); `parent`/`children` are the containment forest.
    """

    def __init__(self, repository: str, nodes: Iterable[Node], edges: Iterable[Edge]) -> None:
        self.repository = repository
        node_list = sorted(nodes, key=lambda n: n.id)
        if len(node_list) > MAX_NODES:
            raise GraphError(f"graph has {len(node_list)} nodes (limit {MAX_NODES})")
        by_id: dict[str, Node] = {}
        for n in node_list:
            _check_node(n)
            if n.id in by_id:
                raise GraphError(f"duplicate node ID {n.id!r}")
            by_id[n.id] = n
        # a key tuple, not the dataclass's generated __lt__ (~4x slower on 10^5 edges)
        edge_list = sorted(edges, key=lambda e: (e.src, e.dst, e.kind))
        parent: dict[str, str] = {}
        children: dict[str, list[str]] = {}
        prev: Edge | None = None
        for e in edge_list:
            if e == prev:
                raise GraphError(f"duplicate edge {e.src!r} -> {e.dst!r}")
            prev = e
            if e.kind != CONTAINS:
                raise GraphError(f"unknown edge kind {e.kind!r} (rq.graph/1 has only 'contains')")
            a, b = by_id.get(e.src), by_id.get(e.dst)
            if a is None or b is None:
                missing = e.src if a is None else e.dst
                raise GraphError(f"dangling edge {e.src!r} -> {e.dst!r}: no node {missing!r}")
            if b.kind == FILE_KIND:
                raise GraphError(f"edge into file node {e.dst!r}: files are never contained")
            if a.path != b.path:
                raise GraphError(f"edge {e.src!r} -> {e.dst!r} crosses files")
            if e.dst in parent:
                raise GraphError(f"node {e.dst!r} has two containers")
            parent[e.dst] = e.src
            children.setdefault(e.src, []).append(e.dst)
        for n in node_list:
            if n.kind != FILE_KIND and n.id not in parent:
                raise GraphError(f"symbol node {n.id!r} is contained by no node")
        _check_acyclic(parent)
        self.nodes: tuple[Node, ...] = tuple(node_list)
        self.edges: tuple[Edge, ...] = tuple(edge_list)
        self.by_id: Mapping[str, Node] = by_id
        self.parent: Mapping[str, str] = parent
        self.children: Mapping[str, tuple[str, ...]] = {k: tuple(v) for k, v in children.items()}

    def prefetch(self, keys: Iterable[str], parents: Iterable[str]) -> None:
        """Everything is in memory already (the rerank's GraphView)."""

    def chain(self, node_id: str) -> list[Node]:
        """The containers of a node, outermost (its file) first."""
        out: list[Node] = []
        cur = self.parent.get(node_id)
        while cur is not None:
            out.append(self.by_id[cur])
            cur = self.parent.get(cur)
        out.reverse()
        return out

    def documents(self) -> list[lexical.LexicalDocument]:
        """The lexical projection: one document per symbol node, in stable-ID order.

        File nodes are structure, not documents: rq answers with definitions,
        and a file's path words are already in every definition it contains.
        """
        return [n.document() for n in self.nodes if n.kind != FILE_KIND]

    @cached_property
    def lexical_identity(self) -> str:
        return lexical.projection_identity(self.documents())

    @cached_property
    def identity(self) -> str:
        """Digest of the canonical sorted nodes (lines included) and edges."""
        import hashlib

        h = hashlib.sha256()
        h.update(f"{SCHEMA}\n".encode())
        h.update(_canon(self.repository))
        h.update(b"\n")
        for n in self.nodes:
            h.update(_canon(n.to_json()))
            h.update(b"\n")
        h.update(b"--\n")
        for e in self.edges:
            h.update(_canon(e.to_json()))
            h.update(b"\n")
        return h.hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "repository": self.repository,
            "identity": {"graph": self.identity, "lexical": self.lexical_identity},
            "nodes": [n.to_json() for n in self.nodes],
            "edges": [e.to_json() for e in self.edges],
        }


def _canon(obj: object) -> bytes:
    import json

    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def _check_text(n_id: str, field: str, value: object, limit: int, *, empty: bool = True) -> None:
    if not isinstance(value, str):
        raise GraphError(f"node {n_id!r}: {field} must be a string")
    if len(value) > limit:
        raise GraphError(f"node {n_id!r}: {field} longer than {limit} characters")
    if not empty and not value:
        raise GraphError(f"node {n_id!r}: {field} is empty")


def _check_node(n: Node) -> None:
    """Bounds and types of one node. One boolean expression for the common good node
    (~0.3 µs); the field-by-field path below runs only to name what is wrong."""
    if (
        type(n.id) is str
        and 0 < len(n.id) <= MAX_ID_CHARS
        and type(n.kind) is str
        and 0 < len(n.kind) <= MAX_KIND_CHARS
        and type(n.name) is str
        and len(n.name) <= MAX_TEXT_CHARS
        and type(n.qualified) is str
        and len(n.qualified) <= MAX_TEXT_CHARS
        and type(n.path) is str
        and 0 < len(n.path) <= MAX_TEXT_CHARS
        and (n.language is None or (type(n.language) is str and len(n.language) <= MAX_KIND_CHARS))
        and type(n.line) is int
        and 1 <= n.line <= MAX_LINE
        and (n.end_line is None or (type(n.end_line) is int and n.line <= n.end_line <= MAX_LINE))
    ):
        return
    _explain_bad_node(n)


def _explain_bad_node(n: Node) -> None:
    if not isinstance(n.id, str) or not n.id:
        raise GraphError("node with an empty or non-string id")
    _check_text(n.id, "id", n.id, MAX_ID_CHARS)
    _check_text(n.id, "kind", n.kind, MAX_KIND_CHARS, empty=False)
    _check_text(n.id, "name", n.name, MAX_TEXT_CHARS)
    _check_text(n.id, "qualified", n.qualified, MAX_TEXT_CHARS)
    _check_text(n.id, "path", n.path, MAX_TEXT_CHARS, empty=False)
    if n.language is not None:
        _check_text(n.id, "language", n.language, MAX_KIND_CHARS)
    if isinstance(n.line, bool) or not isinstance(n.line, int) or not 1 <= n.line <= MAX_LINE:
        raise GraphError(f"node {n.id!r}: line must be a whole number in 1..{MAX_LINE}")
    if n.end_line is not None and (
        isinstance(n.end_line, bool)
        or not isinstance(n.end_line, int)
        or not n.line <= n.end_line <= MAX_LINE
    ):
        raise GraphError(f"node {n.id!r}: end_line must be null or a whole number >= line")
    raise GraphError(f"node {n.id!r}: a field has the wrong type")


def _check_acyclic(parent: Mapping[str, str]) -> None:
    done: set[str] = set()
    for start in parent:
        seen: set[str] = set()
        cur: str | None = start
        while cur is not None and cur not in done:
            if cur in seen:
                raise GraphError(f"containment cycle through {cur!r}")
            seen.add(cur)
            cur = parent.get(cur)
        done |= seen
