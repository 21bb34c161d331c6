"""`rq -q QUERY` (and `rq QUERY` piped): one-shot search, printed as data, with exit codes.

Plain `path:line  kind  qualified.name` (colour only on a terminal without
NO_COLOR), `--json` (one array) or `--ndjson` (one object a line), `--explain`
for the score breakdown. Exit 0 on results, 1 on a definitive miss (complete
index), 2 on a miss while the index is incomplete. Hot path: stdlib + the
engine's query modules only (no tree-sitter, textual, rich, mcp on a hit; the
indexer is imported only when a git repository has no index yet).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rq_engine.core.errors import ExitCode, RqError

# `typing` costs ~2 ms to import; mypy honours a local TYPE_CHECKING the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import sqlite3
    from typing import TextIO

    from rq_engine.search.types import Hit

DEFAULT_LIMIT = 20
_BOLD, _DIM, _CYAN, _MAG, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[36m", "\x1b[35m", "\x1b[0m"


def _say(msg: str) -> None:
    print(f"rq: {msg}", file=sys.stderr)


def run(ns: argparse.Namespace) -> int:
    import sqlite3

    from rq_engine.search.pipeline import Searcher
    from rq_engine.store.paths import index_db_path

    query: str = ns.query
    limit = ns.limit or DEFAULT_LIMIT
    cwd = Path(os.getcwd())
    db = index_db_path()
    try:
        conn = _open(db, cwd)
        searcher = Searcher(conn, cwd, all_repos=ns.all_repos)
        if searcher.repository is None and not ns.all_repos:
            conn = _first_index(conn, cwd)
            searcher = Searcher(conn, cwd, all_repos=ns.all_repos)
        final = None
        for batch in searcher.search(query, limit=limit):
            final = batch
    except sqlite3.DatabaseError as e:
        raise RqError(f"cannot read index {db}: {e}", ExitCode.IOERR) from e
    hits = final.hits if final is not None else []
    if not hits:
        if ns.json:
            sys.stdout.write("[]\n")  # a program parsing the array gets an empty one
        if searcher.state == "complete" or ns.all_repos:
            return int(ExitCode.MISS)
        _say(f"no match for {query!r} yet; the index of {searcher.root} is incomplete")
        return int(ExitCode.WARMING)
    out = sys.stdout
    where = str(cwd)
    if ns.json or ns.ndjson:
        import json  # deferred: only the program-facing outputs need it

        from rq_engine.search.render import hit_to_json

        objs = [hit_to_json(h, where, ns.explain) for h in hits]
        if ns.json:
            out.write(json.dumps(objs, ensure_ascii=False) + "\n")
        else:
            out.write("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs))
    else:
        colour = out.isatty() and "NO_COLOR" not in os.environ
        _plain(out, hits, where, colour, ns.explain)
    out.flush()
    return int(ExitCode.OK)


def _open(db: Path, cwd: Path) -> sqlite3.Connection:
    """Open the index; with none at all, a git work tree is indexed first, else exit 2."""
    from rq_engine.store.db import connect

    if db.exists():
        return connect(db)
    from rq_engine.core.identity import find_git_root

    if find_git_root(cwd) is None:
        raise RqError(f"{cwd} is not indexed; run rq --index {cwd}", ExitCode.WARMING)
    return connect(db)


def _first_index(conn: sqlite3.Connection, cwd: Path) -> sqlite3.Connection:
    """A git repository with no index yet is indexed before answering: never a false
    'no matches'. (Until warming lands this is the whole repository, once.)"""
    from rq_engine.core.identity import find_git_root

    root = find_git_root(cwd)
    if root is None:
        raise RqError(f"{cwd} is not indexed; run rq --index {cwd}", ExitCode.WARMING)
    if sys.stderr.isatty():
        _say(f"indexing {root} (first search here)…")
    from rq_engine.index.indexer import index_under  # deferred: the parse path is heavy

    index_under(conn, root)
    return conn


def _plain(out: TextIO, hits: list[Hit], cwd: str, colour: bool, explain: bool) -> None:
    from rq_engine.search.render import display_path

    lines: list[str] = []
    for h in hits:
        loc = f"{display_path(h, cwd)}:{h.line}"
        if colour:
            lines.append(f"{_CYAN}{loc}{_RESET}  {_DIM}{h.kind}{_RESET}  {_highlight(h)}")
        else:
            lines.append(f"{loc}  {h.kind}  {h.qualified}")
        if explain:
            for feat, val in h.score.parts:
                lines.append(f"    {feat:<18} {val:+8.1f}")
            lines.append(f"    {'total':<18} {h.score.total:+8.1f}")
    out.write("\n".join(lines) + "\n")


def _highlight(h: Hit) -> str:
    """The qualified name with the matched letters of the leaf in bold magenta."""
    q = h.qualified
    if not h.positions or not q.endswith(h.name):
        return q
    off = len(q) - len(h.name)
    pos = set(h.positions)
    parts = [q[:off]]
    for i, ch in enumerate(h.name):
        parts.append(f"{_BOLD}{_MAG}{ch}{_RESET}" if i in pos else ch)
    return "".join(parts)
