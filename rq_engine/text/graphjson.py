"""graph.json, the file form of an rq.graph/1 realization: read and validated (`load`,
`from_json`), written canonical and atomically (`dump`).

Apart from graph.py because only `rq --graph`, `rq --export-graph` and the benches
read or write the file: a text query over the live index never loads this module.
A file's graph is validated by the same graph.Graph as the live index's, then by
the file's own rules (the schema, each node's and edge's shape, a claimed
identity). json, tempfile and pathlib are imported by the functions that use them
(reading a graph needs no tempfile). Stdlib + rq_engine.core + rq_engine.text only;
must not import the store or any face.
"""

from __future__ import annotations

import os

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.text.graph import MAX_TEXT_CHARS, SCHEMA, Edge, Graph, GraphError, Node

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def _node_from(obj: object, i: int) -> Node:
    if not isinstance(obj, dict):
        raise GraphError(f"nodes[{i}] is not an object")
    missing = [k for k in ("id", "kind", "name", "qualified", "path", "line") if k not in obj]
    if missing:
        raise GraphError(f"nodes[{i}] lacks {', '.join(missing)}")
    if not isinstance(obj["id"], str) or not obj["id"]:
        raise GraphError(f"nodes[{i}].id must be a non-empty string")
    return Node(
        id=obj["id"],
        kind=obj["kind"],
        name=obj["name"],
        qualified=obj["qualified"],
        path=obj["path"],
        line=obj["line"],
        end_line=obj.get("end_line"),
        language=obj.get("language"),
    )


def _edge_from(obj: object, i: int) -> Edge:
    if not isinstance(obj, dict):
        raise GraphError(f"edges[{i}] is not an object")
    for k in ("kind", "from", "to"):
        if not isinstance(obj.get(k), str):
            raise GraphError(f"edges[{i}].{k} must be a string")
    return Edge(src=obj["from"], dst=obj["to"], kind=obj["kind"])


def from_json(data: object, where: str = "graph") -> Graph:
    """Validate a parsed graph.json. The `identity` block is optional; when present it must
    equal what the content recomputes to (a hand edit must drop it or fix it)."""
    if not isinstance(data, dict):
        raise GraphError(f"{where}: not a graph (top level is not an object)")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise GraphError(f"{where}: schema {schema!r} is not {SCHEMA!r}")
    repo = data.get("repository")
    if not isinstance(repo, str) or not repo or len(repo) > MAX_TEXT_CHARS:
        raise GraphError(f"{where}: repository must be a non-empty string")
    nodes, edges = data.get("nodes"), data.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise GraphError(f"{where}: nodes and edges must be arrays")
    try:
        g = Graph(
            repo,
            (_node_from(o, i) for i, o in enumerate(nodes)),
            (_edge_from(o, i) for i, o in enumerate(edges)),
        )
    except GraphError as e:
        raise GraphError(f"{where}: {e.message}") from None
    ident = data.get("identity")
    if ident is not None:
        if not isinstance(ident, dict):
            raise GraphError(f"{where}: identity must be an object")
        for key, actual in (("graph", g.identity), ("lexical", g.lexical_identity)):
            claimed = ident.get(key)
            if claimed is not None and claimed != actual:
                raise GraphError(
                    f"{where}: identity.{key} {str(claimed)[:16]}… does not match the content"
                    f" ({actual[:16]}…); drop the identity block after editing by hand"
                )
    return g


def _compact(graph: Graph) -> str:
    """graph.json with no indentation: the header, then one node or edge per line."""
    import json

    def enc(o: object) -> str:
        return json.dumps(o, ensure_ascii=False, separators=(",", ":"))

    d = graph.to_json()
    head = {k: d[k] for k in ("schema", "repository", "identity")}
    lines = [enc(head)[:-1] + ',"nodes":[']
    lines += [enc(n) + "," for n in d["nodes"]]
    if d["nodes"]:
        lines[-1] = lines[-1][:-1]
    lines.append('],"edges":[')
    lines += [enc(e) + "," for e in d["edges"]]
    if d["edges"]:
        lines[-1] = lines[-1][:-1]
    lines.append("]}")
    return "\n".join(lines) + "\n"


def load(path: Path) -> Graph:
    """Read and validate a graph.json; any problem is a GraphError (exit 74), never empty."""
    import json

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise GraphError(f"{path}: {e.strerror or e}") from None
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise GraphError(f"{path}: not valid JSON ({e})") from None
    except RecursionError:
        raise GraphError(f"{path}: JSON nested too deeply") from None
    return from_json(data, str(path))


def dump(graph: Graph, path: Path) -> None:
    """Write canonical graph.json atomically: a temp file in the same directory, then rename.
    Compact: one node or edge a line, no indentation (an indented Go std + Django was
    177 MB; the same graph is ~40% smaller and as diffable this way)."""
    import tempfile
    from pathlib import Path

    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    body = _compact(graph)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise RqError(f"cannot write {path}: {e.strerror or e}", ExitCode.IOERR) from None
    try:
        # mkstemp makes the file 0600; an exported graph is an ordinary user file
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise RqError(f"cannot write {path}: {e.strerror or e}", ExitCode.IOERR) from None
