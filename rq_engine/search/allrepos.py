"""The `--all-repos` answer: every indexed repository searched as it is, and when its miss is definitive.

The current repository, if it is a git work tree not indexed or not fresh, is
handed to the warmer; the others are searched as they stand. A miss is
definitive only when every repository is complete and the current one is
caught up as a query in it alone would be: a miss never trusts the freshness
window, so git is asked what moved there (search/blocking.py's `caught_up`; a
definition added since would be missing).

Loaded only for `--all-repos` (search/service.py dispatches here), so a query in
one repository never imports it.
"""

from __future__ import annotations

from rq_engine.core.errors import NOTHING_INDEXED
from rq_engine.core.identity import git_dir
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import fresh
from rq_engine.search.answer import Answer
from rq_engine.search.pipeline import Searcher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rq_engine.core.cancel import CancelToken
    from rq_engine.core.wait import Wait
    from rq_engine.search.answer import Progress
    from rq_engine.search.service import QueryService


def answer_all(
    svc: QueryService,
    query: str,
    limit: int,
    wait: Wait,
    tok: CancelToken,
    progress: Callable[[Progress], None] | None,
) -> Answer:
    """`query` over every indexed repository, from `svc`'s working directory."""
    cur = Searcher(svc.conn, svc.cwd)
    co = None
    if cur.repo_id is None:
        from rq_engine.core.identity import checkout_for

        found = checkout_for(svc.cwd)
        co = found if found.git_dir is not None else None
    elif cur.state != "complete" or not fresh.fresh(svc.conn, cur.root, git_dir(cur.root)):
        co = svc.checkout_of(cur)
    svc.hand_off(co)
    s, hits, _ = svc.validated(query, limit)
    moved = interrupted = False
    note = ""
    if not hits and cur.repo_id is not None and cur.state == "complete":
        from rq_engine.search.blocking import BlockingAnswer

        caught = BlockingAnswer(svc, query, limit, wait, tok, progress).caught_up(cur, hits)
        hits, interrupted = caught.hits, caught.interrupted
        moved = caught.outcome == "warming"  # changed, and not (yet) caught up
        note = caught.note
    # an index holding no repository is not a complete one: "no match" would claim
    # absence where nothing was looked at
    held = _any_repository(svc.conn)
    complete = held and _all_complete(svc.conn) and (cur.repo_id is not None or co is None)
    state = "complete" if complete else "warming"
    outcome = "hit" if hits else ("miss" if complete and not moved else "warming")
    if outcome == "warming" and not note:
        note = "some repositories are not indexed completely yet"
        if cur.repo_id is None and co is not None:
            note = f"{co.root} is not indexed yet"
        elif not held:
            note = NOTHING_INDEXED
    a = Answer(hits, outcome, state, cur.root, cur.repository, interrupted, note)
    a.boost_note = s.boost_note()
    return a


def _any_repository(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM repositories LIMIT 1").fetchone() is not None


def _all_complete(conn: sqlite3.Connection) -> bool:
    """Whether every indexed repository's full coverage is complete."""
    rows = conn.execute(
        "SELECT count(*) FROM repositories r LEFT JOIN coverage c ON c.repository_id = r.id"
        " AND c.scope = 'full' WHERE coalesce(c.status, 'never') != 'complete'"
    ).fetchone()
    return int(rows[0]) == 0
