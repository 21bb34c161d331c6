"""index_status: coverage, counts, freshness and what warming is doing, for the served repository.

Read queries over the index (the served repository's coverage row and counts;
every repository's under --all-repos, store/status.py), the warm lock and the
freshness verdict; then the warming rules like every other call: a repository
that needs warming is handed to the warmer after the reply. Runs in the engine
process; never imports mcp.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from rq_engine.core.identity import git_dir
from rq_engine.index import fresh, lock
from rq_engine.mcp import bound
from rq_engine.mcp.scope import Session
from rq_engine.search.handoff import start_warmer
from rq_engine.store import status, writes
from rq_engine.store.paths import index_db_file

Reply = dict[str, Any]
After = Callable[[], None] | None


def index_status(sess: Session, args: dict[str, Any]) -> tuple[Reply, After]:
    svc = sess.service(False)
    conn = svc.conn
    s = svc.searcher()
    # (every repository's counts scan the whole symbol index: ~50 ms at 470k definitions)
    repos = status.repositories(conn) if sess.all_repos else []
    mine = _mine(conn, s.repo_id)
    holder = lock.holder(conn, s.repository) if s.repository else None
    is_fresh = mine is not None and fresh.fresh(conn, s.root, git_dir(s.root))
    co = svc.needs_warming()
    if holder is not None:
        done = mine.files if mine else 0
        seen = f" of {mine.files_seen}" if mine and mine.files_seen else ""
        doing = f"a warmer (pid {holder.pid}) is indexing: {done}{seen} files so far"
    elif mine is None:
        doing = (
            "not indexed yet: indexing starts now (the next find_symbol waits for its answer)"
            if co is not None
            else "not a git work tree and not indexed: searches scan it live;"
            f" run `rq --index {s.root}` to index it"
        )
    elif mine.status != "complete":
        doing = "warming stopped short of complete: it resumes now and with the next search"
    elif co is not None:
        doing = "complete; git is asked what moved (edits are re-read on every call anyway)"
    else:
        doing = "complete and checked: nothing to do"
    reply: Reply = {
        "root": s.root,
        "repository": s.repository,
        "all_repos": sess.all_repos,
        "coverage": s.state,
        "files_indexed": mine.files if mine else 0,
        "files_seen": (mine.files_seen or 0) if mine else 0,
        "files_skipped": (mine.files_skipped or 0) if mine else 0,
        "files_failed": (mine.files_failed or 0) if mine else 0,
        "symbols": mine.symbols if mine else 0,
        "fresh": is_fresh,
        "warming": holder is not None,
        "warmer_pid": holder.pid if holder is not None else None,
        "doing": doing,
        "updated_at": mine.updated_at if mine else None,
        "index_path": index_db_file(),
        "repositories": [
            {
                "repository": r.identity,
                "coverage": r.status,
                "files": r.files,
                "symbols": r.symbols,
                "roots": [c.root for c in r.checkouts],
            }
            for r in repos
        ],
        **bound.envelope(),
    }
    bound.fit_list(reply, "repositories", bound.max_chars(), "repositories")
    after: After = None
    if co is not None and holder is None:

        def after() -> None:
            start_warmer(conn, co)

    return reply, after


def _mine(conn: sqlite3.Connection, rid: int | None) -> status.RepoRow | None:
    """The served repository's row, counted alone."""
    if rid is None:
        return None
    row = conn.execute(
        "SELECT r.identity, coalesce(c.status, 'never'), c.files_seen, c.files_skipped,"
        " c.files_failed, coalesce(c.updated_at, r.updated_at) FROM repositories r"
        " LEFT JOIN coverage c ON c.repository_id = r.id AND c.scope = 'full' WHERE r.id = ?",
        (rid,),
    ).fetchone()
    if row is None:
        return None
    ident, state, seen, skipped, failed, upd = row
    files, symbols = writes.count_files(conn, rid), writes.count_symbols(conn, rid)
    return status.RepoRow(rid, ident, state, files, symbols, seen, skipped, failed, upd, [])
