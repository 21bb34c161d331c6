"""Answering a text query as every face does: bring the index up, revalidate, render.

`rq --text` (cli/cmd_text.py) and MCP's search_text (mcp/text.py) both run these
steps, so neither face imports the other for them: bring the repository's index
up to date under the same freshness rules as a symbol query, re-ask once when a
result's file moved since it was indexed, make a miss a promise (ask git what
moved, catch up, ask again; name what rq does not read), and render a result as
the JSON both print. Imports rq_engine.core, store and index only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rq_engine.core.record import Record
from rq_engine.text.graph import Node
from rq_engine.text.service import Realization, TextAnswer

TYPE_CHECKING = False  # (typing: ~3 ms of a cached text query)
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from rq_engine.core.identity import Checkout
    from rq_engine.core.wait import Wait
    from rq_engine.text.query import Ranked


def bring_up(
    cwd: Path,
    *,
    human: bool,
    wait_ms: int | None = None,
    say: Callable[[str], None] | None = None,
) -> Checkout | None:
    """The same freshness rules as a symbol query: a never-indexed git work tree or a
    warming index is warmed to complete first (a text query ranks the whole graph),
    within the wait policy; the checkout to hand to the warmer afterwards, if any.
    `human`: a person is waiting (the wait policy's, and `say` tells them why)."""
    from rq_engine.core.identity import checkout_for
    from rq_engine.core.wait import Wait
    from rq_engine.index import fresh
    from rq_engine.store.db import connect

    wait = Wait.for_face(wait_ms, human)
    conn = connect()
    try:
        # The common case first, from strings: an indexed checkout, complete, with a
        # fresh verdict (no Checkout: its git config parse and pathlib cost ~4 ms).
        from rq_engine.core.identity import git_dir
        from rq_engine.store.repos import locate

        root, _, identity = locate(conn, cwd)
        if (
            identity is not None
            and _coverage(conn, identity) == "complete"
            and fresh.fresh(conn, root, git_dir(root))
        ):
            return None
        co = checkout_for(cwd)
        state = _coverage(conn, co.identity)
        if state == "never" and co.git_dir is None:
            return None  # a plain directory is indexed only when asked (open_live says so)
        if state != "complete" and not wait.none:
            if human and say is not None:
                say(f"indexing {co.root} before ranking it (Ctrl-C stops; what is done is kept)")
            from rq_engine.index import warm

            state = warm.until_complete(conn, co, budget_ms=wait.budget_ms)
        elif state == "complete" and not wait.none and not fresh.fresh(conn, co.root, co.git_dir):
            # the ranking reads every definition: what moved since the index was settled
            # is reindexed first (outside the recheck window; inside it, a miss asks:
            # confirm_miss)
            caught = _catch_up(conn, co, _repo_id(conn, co.identity), wait)
            return None if caught.settled else co
        if state != "complete" or not fresh.fresh(conn, co.root, co.git_dir):
            return co
    finally:
        conn.close()
    return None


class _Caught(Record):
    moved: bool  # git named something that moved since the index was settled
    finished: bool  # what moved was reindexed: no deadline, Ctrl-C or --no-wait cut it
    settled: bool  # and the index is true to the work tree again (its verdict recorded)


def _catch_up(conn: sqlite3.Connection, co: Checkout, rid: int, wait: Wait) -> _Caught:
    """Ask git what moved in `co` since its index was settled (fresh.check), reindex it
    within `wait` (warm.catch_up; nothing with --no-wait) and, once the index is true
    again, record the verdict (fresh.settle): the steps and rules of `rq -q`'s miss
    (search/blocking.py's caught_up), without its symbol-search early stop."""
    from rq_engine.index import fresh

    moved = fresh.check(conn, co.root, co.git_dir, rid)
    dirs = moved.dirs
    if moved.moved:
        if wait.none:
            return _Caught(True, False, False)
        from rq_engine.index import warm

        stats = warm.catch_up(conn, co, moved, budget_ms=wait.budget_ms)
        finished = not stats.timed_out and not stats.cancelled
        if not (finished and (stats.complete or not moved.walk)):
            return _Caught(True, finished, False)
        if stats.dirs is not None:
            dirs = stats.dirs
    fresh.settle(
        conn,
        co.root,
        co.git_dir,
        rid,
        moved.stamp,
        moved.held,
        reindexed=moved.moved,
        dirs=dirs,
    )
    return _Caught(moved.moved, True, True)


class Miss(Record):
    """What a text answer with no result means (confirm_miss). `outcome`: miss (absent
    from the files rq reads: exit 1) | unread (nothing here rq reads: exit 3) | warming
    (the work tree moved and is not caught up yet: exit 2) | "" (not one complete
    repository of the index: the answer's own state says). `note` and `not_read` as
    store/readable.py's; `handoff`: the checkout to leave to the warmer."""

    answer: TextAnswer
    outcome: str = ""
    note: str = ""
    not_read: tuple[tuple[str, int], ...] = ()
    handoff: Checkout | None = None


def confirm_miss(
    cwd: Path,
    a: TextAnswer,
    ask: Callable[[], TextAnswer],
    *,
    human: bool,
    wait_ms: int | None = None,
) -> Miss:
    """Make a miss on a complete index the promise `rq -q`'s is: absent, not "not indexed
    yet". Git is asked what moved since the index was settled — inside the recheck window
    too, where a hit trusts the verdict but an unstaged new file, rename or added
    definition changes no stamp (D16) — what moved is reindexed within the wait policy
    and the query asked again (by `ask`). When nothing moved but another rq wrote the
    repository after `a` was ranked (its text_seq), it is asked again too. Then the
    files rq does not read are named (store/readable.py). Forks git: on a miss only."""
    real = a.realization
    if a.hits or real.source != "index" or real.warming or real.graph.repository == "*":
        return Miss(a)
    from rq_engine.core.identity import Checkout, current_branch, git_dir
    from rq_engine.core.wait import Wait
    from rq_engine.store.db import connect
    from rq_engine.store.readable import miss_verdict
    from rq_engine.store.repos import locate
    from rq_engine.text.service import text_seq

    wait = Wait.for_face(wait_ms, human)
    conn = connect()
    try:
        root, rid, identity = locate(conn, cwd)
        if rid is None or identity != real.graph.repository:
            return Miss(a)
        if _coverage(conn, identity) != "complete":
            return Miss(a)
        gd = git_dir(root)
        co = Checkout(Path(root), identity, current_branch(gd), Path(gd) if gd else None)
        caught = _catch_up(conn, co, rid, wait)
        if caught.moved or text_seq(conn, identity) != real.seq:
            a = revalidate(ask(), ask)
        handoff = None if caught.settled else co
        if a.hits:
            return Miss(a, handoff=handoff)
        if not caught.finished:
            why = (
                "changed since it was indexed"
                if wait.none
                else "changed and is still being indexed"
            )
            return Miss(a, "warming", f"{root} {why}", handoff=co)
        v = miss_verdict(conn, rid)
        return Miss(a, v.outcome, v.note, v.not_read, handoff)
    finally:
        conn.close()


def _repo_id(conn: sqlite3.Connection, identity: str) -> int:
    row = conn.execute("SELECT id FROM repositories WHERE identity = ?", (identity,)).fetchone()
    return int(row[0])


def _coverage(conn: sqlite3.Connection, identity: str) -> str:
    row = conn.execute(
        "SELECT c.status FROM coverage c JOIN repositories r ON r.id = c.repository_id"
        " WHERE r.identity = ? AND c.scope = 'full'",
        (identity,),
    ).fetchone()
    return str(row[0]) if row else "never"


def revalidate(a: TextAnswer, ask: Callable[[], TextAnswer]) -> TextAnswer:
    """Results whose file moved since it was indexed are reindexed, and the query is asked
    again (once, by `ask`): a stale line is never shown."""
    if a.realization.source != "index":
        return a
    from rq_engine.index import revalidate as validate
    from rq_engine.store.db import connect

    items = []
    for node, _ in a.hits:
        repo = node.id.split("|", 1)[0] if a.realization.graph.repository == "*" else None
        ident = repo or a.realization.graph.repository
        root = a.realization.roots.get(ident)
        if root is not None:
            items.append((str(root), ident, node.path))
    conn = connect()
    try:
        moved = validate.stale_files(conn, items)
        if not moved:
            return a
        validate.refresh(conn, moved)
    finally:
        conn.close()
    return ask()


def display_path(node: Node, real: Realization, cwd: Path) -> str:
    repo = node.id.split("|", 1)[0] if real.graph.repository == "*" else real.graph.repository
    root = real.roots.get(repo)
    if root is None:
        return node.path
    return os.path.relpath(root / node.path, cwd)


def result_json(
    node: Node, chain: list[Node], r: Ranked, real: Realization, cwd: Path
) -> dict[str, Any]:
    repo = node.id.split("|", 1)[0] if real.graph.repository == "*" else real.graph.repository
    out: dict[str, Any] = {
        "path": display_path(node, real, cwd),
        "line": node.line,
        "end_line": node.end_line,
        "name": node.name,
        "qualified": node.qualified,
        "kind": node.kind,
        "language": node.language,
        "repository": repo,
        "score": round(r.score, 6),
        "id": node.id,
        "chain": [{"id": c.id, "kind": c.kind, "name": c.name} for c in chain],
        "coverage": round(r.coverage, 6),
    }
    if r.explain is not None:
        out["explain"] = {
            "lexical": round(r.lexical, 6),
            "structure": round(r.structure, 6),
            "norm": r.explain.norm,
            "terms": [
                {
                    "term": t.term,
                    "idf": round(t.idf, 6),
                    "tf": t.tf,
                    "contribution": round(t.contribution, 6),
                    "fields": [
                        {
                            "field": f.field,
                            "count": f.count,
                            "weight": f.weight,
                            "contribution": round(f.contribution, 6),
                        }
                        for f in t.fields
                    ],
                }
                for t in r.explain.terms
            ],
            "features": [
                {"name": f.name, "op": f.op, "value": round(f.value, 6), "detail": f.detail}
                for f in r.explain.features
            ],
            "children": [
                {"id": s.child, "units": list(s.units), "contribution": round(s.contribution, 6)}
                for s in r.explain.structure
            ],
        }
    return out


__all__ = ["Miss", "bring_up", "confirm_miss", "display_path", "result_json", "revalidate"]
