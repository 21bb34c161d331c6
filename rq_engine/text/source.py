"""Realizing the rq.graph/1 graph of a repository from the live index (its indexed symbols).

Reads files and symbols of one repository in one read transaction, names every
node with its stable ID and resolves `parent` strings into `contains` edges.
Imports the store and the language registry's pure-data helpers; never a face.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.record import Record
from rq_engine.lang import registry
from rq_engine.store.repos import locate
from rq_engine.text.graph import (
    FILE_KIND,
    MAX_TEXT_CHARS,
    Edge,
    Graph,
    Node,
    escape_component,
    file_id,
    fit_id,
)


class _Sym(Record):
    name: str
    kind: str
    parent: str | None
    line: int
    end_line: int | None
    language: str


def _scope_key(sym: _Sym, seps: dict[str, str]) -> str:
    """The string a child's `parent` names this symbol by (`parent` + separator + name)."""
    sep = seps.get(sym.language, ".")
    return f"{sym.parent}{sep}{sym.name}" if sym.parent else sym.name


def _container(candidates: list[int], syms: list[_Sym], child: _Sym) -> int:
    """Pick the one symbol a child's `parent` names, when a file defines that name twice.

    The innermost candidate whose span holds the child's line; else the last one
    that starts before it; else the first. Deterministic, and the only choice a
    reopened class or a duplicate definition leaves.
    """
    if len(candidates) == 1:
        return candidates[0]
    holding = [
        i
        for i in candidates
        if syms[i].line <= child.line <= (syms[i].end_line or syms[i].line) and syms[i] is not child
    ]
    if holding:
        return min(holding, key=lambda i: ((syms[i].end_line or syms[i].line) - syms[i].line, -i))
    before = [i for i in candidates if syms[i].line <= child.line]
    return before[-1] if before else candidates[0]


def file_graph(
    repository: str, path: str, language: str | None, syms: list[_Sym], seps: dict[str, str]
) -> tuple[list[Node], list[Edge]]:
    """Nodes and edges of one file. A `parent` that is no symbol of this file (a Go method
    whose receiver type is declared in another file, a Ruby class reopened under a
    module declared elsewhere) attaches to the file node."""
    syms = sorted(syms, key=lambda s: (s.line, s.end_line or s.line, s.kind, s.name))
    fid = file_id(repository, path)
    # `stable_id` spelled out with the repository and path escaped once per file
    prefix = f"{escape_component(repository)}|{escape_component(path)}|"
    base = path.rsplit("/", 1)[-1]
    nodes = [Node(fid, FILE_KIND, base, path, path, 1, None, language)]
    edges: list[Edge] = []
    seen: dict[tuple[str, str], int] = {}
    ids: list[str] = []
    by_key: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(syms):
        qualified = registry.qualify(s.language, s.parent, s.name, s.kind)
        nth = seen.get((s.kind, qualified), 0) + 1
        seen[(s.kind, qualified)] = nth
        nid = f"{prefix}{escape_component(s.kind)}|{escape_component(qualified)}"
        if nth > 1:
            nid = f"{nid}~{nth}"
        nid = fit_id(nid)
        ids.append(nid)
        by_key[_scope_key(s, seps)].append(i)
        end = s.end_line if s.end_line is None or s.end_line >= s.line else s.line
        name = s.name
        if len(qualified) > MAX_TEXT_CHARS:  # rows of an index older than index/bounds.py
            name, qualified = name[:MAX_TEXT_CHARS], qualified[-MAX_TEXT_CHARS:]
        nodes.append(Node(nid, s.kind, name, qualified, path, s.line, end, s.language))
    for i, s in enumerate(syms):
        cands = by_key.get(s.parent) if s.parent else None
        if cands:
            j = _container(cands, syms, s)
            # The scope key of a container is a strict prefix of its child's, so
            # j != i always holds; guarded anyway against a plugin's odd names.
            edges.append(Edge(ids[j] if j != i else fid, ids[i]))
        else:
            edges.append(Edge(fid, ids[i]))
    return nodes, edges


def realize(conn: sqlite3.Connection, repository: str, *, snapshot: bool = True) -> Graph:
    """The validated graph of one repository's current indexed state (read in one
    snapshot of its own, or in the caller's transaction when `snapshot` is False)."""
    row = conn.execute("SELECT id FROM repositories WHERE identity = ?", (repository,)).fetchone()
    if row is None:
        raise RqError(f"repository {repository} is not indexed (run rq --index)", ExitCode.IOERR)
    nodes, edges = realize_files(conn, repository, int(row[0]), None, snapshot=snapshot)
    return Graph(repository, nodes, edges)


def realize_files(
    conn: sqlite3.Connection,
    repository: str,
    rid: int,
    paths: list[str] | None,
    *,
    snapshot: bool = True,
) -> tuple[list[Node], list[Edge]]:
    """Nodes and edges of the indexed files at `paths` (every file when None): IDs and
    containment are per file, so a part of the graph realizes alone."""
    seps = registry.scope_separators()
    files: dict[int, tuple[str, str | None]] = {}
    per_file: dict[int, list[_Sym]] = defaultdict(list)
    sym_sql = (
        "SELECT file_id, name, kind, parent, line, end_line, language FROM symbols"
        " WHERE repository_id = ?"
    )
    try:
        if snapshot:
            conn.execute("BEGIN")  # one snapshot for files and symbols
        if paths is None:
            for fid, path, lang in conn.execute(
                "SELECT id, path, language FROM files WHERE repository_id = ?", (rid,)
            ):
                files[fid] = (path, lang)
            rows = conn.execute(sym_sql, (rid,)).fetchall()
        else:
            rows = []
            for i in range(0, len(paths), 500):
                chunk = paths[i : i + 500]
                marks = ",".join("?" * len(chunk))
                got = conn.execute(
                    "SELECT id, path, language FROM files WHERE repository_id = ?"
                    f" AND path IN ({marks})",
                    (rid, *chunk),
                ).fetchall()
                files.update((fid, (path, lang)) for fid, path, lang in got)
                ids = [g[0] for g in got]
                if ids:
                    marks = ",".join("?" * len(ids))
                    # (`+repository_id`: the file ids already name the repository, and
                    # without it SQLite walks the repository's whole name index —
                    # ~200 ms on Go std — instead of the file index)
                    rows += conn.execute(
                        f"{sym_sql.replace('repository_id', '+repository_id')}"
                        f" AND file_id IN ({marks})",
                        (rid, *ids),
                    )
        for fid, name, kind, parent, line, end_line, lang in rows:
            per_file[fid].append(_Sym(name, kind, parent, max(1, line), end_line, lang))
        if snapshot:
            conn.execute("COMMIT")
    except sqlite3.Error as e:
        raise RqError(f"cannot read the index: {e}", ExitCode.IOERR) from None
    nodes: list[Node] = []
    edges: list[Edge] = []
    for fid, (path, lang) in files.items():
        fnodes, fedges = file_graph(repository, path, lang, per_file.get(fid, []), seps)
        nodes.extend(fnodes)
        edges.extend(fedges)
    return nodes, edges


def repository_of(conn: sqlite3.Connection, cwd: Path) -> str:
    """The indexed repository of a working directory (its checkout's identity)."""
    root, _, identity = locate(conn, cwd)
    if identity is None:
        # Not yet, not absent (exit 2, as for a symbol query): a git work tree is warmed
        # by the next query that may wait; a plain directory only by `rq --index`.
        from rq_engine.core.identity import git_dir

        hint = "" if git_dir(root) is not None else f" (run rq --index {root})"
        raise RqError(f"{root} is not indexed yet{hint}", ExitCode.WARMING)
    return identity


def all_repositories(conn: sqlite3.Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT identity FROM repositories ORDER BY identity")]
