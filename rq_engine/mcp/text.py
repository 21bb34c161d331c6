"""search_text: the text ranker over the code graph, as `rq --text --json` answers it, bounded.

The `rq --text` path, step for step (the steps: rq_engine/text/answering.py):
bring the repository up to date under the same freshness rules (a never-indexed or warming index is warmed to complete
within the wait policy; what moved since the last verdict is reindexed), ask
the text query service (bm25-v1 through the persisted cache, like the CLI;
full-scan-v1 and `all_repos` realize the graph and rank with the session's
TextService, which keeps its rankers), revalidate the files behind the
results, confirm a miss (what moved is caught up first), render each result as
the CLI does.

Runs in the engine process; never imports mcp.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.printers import Output
from rq_engine.mcp import bound
from rq_engine.mcp.schema import RANKERS, TEXT_DEFAULT_LIMIT
from rq_engine.mcp.scope import Session
from rq_engine.text.answering import bring_up, confirm_miss, result_json, revalidate
from rq_engine.text.service import BM25, TextAnswer, open_live, query_live

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.core.identity import Checkout

Reply = dict[str, Any]
After = Callable[[], None] | None


def _ask(sess: Session, cwd: Path, words: str, ranker: str, limit: int) -> TextAnswer:
    if ranker == BM25 and not sess.all_repos:
        # the persisted cache (an exact hit reads a few postings, never the graph)
        return query_live(cwd, words, profile=ranker, limit=limit, cancel=sess.cancel)
    real = open_live(cwd, all_repos=sess.all_repos)
    return sess.text.query(real, words, profile=ranker, limit=limit, cancel=sess.cancel)


def search_text(sess: Session, args: dict[str, Any]) -> tuple[Reply, After]:
    words: str = args["words"]
    if not words.strip():
        raise bound.ToolError("words: must not be blank")
    limit: int = args.get("limit", TEXT_DEFAULT_LIMIT)
    ranker: str = args.get("ranker") or RANKERS[0]
    cwd = Path(sess.cwd)
    # a program: waits within RQ_WAIT_BUDGET_MS, says nothing on stderr
    handoff = None if sess.all_repos else bring_up(cwd, human=False)
    try:
        answer = _ask(sess, cwd, words, ranker, limit)
    except RqError as e:
        if e.code != ExitCode.WARMING:
            raise
        return _not_yet(words, ranker, e.message), _warm(sess, handoff)
    answer = revalidate(answer, lambda: _ask(sess, cwd, words, ranker, limit))
    # a miss is a promise, as `rq --text`'s: git is asked what moved, and it is caught up
    miss = confirm_miss(cwd, answer, lambda: _ask(sess, cwd, words, ranker, limit), human=False)
    answer, handoff = miss.answer, handoff or miss.handoff
    real = answer.realization
    ranking = answer.ranking
    results = [
        result_json(n, c, r, real, cwd)
        for (n, c), r in zip(answer.hits, ranking.results[: len(answer.hits)], strict=True)
    ]
    coverage = "warming" if real.warming else "complete"
    if results:
        outcome, note = "hit", ""
    elif real.warming:
        outcome = "not_yet"
        note = f"the index of {', '.join(real.warming)} is still warming: nothing yet"
    elif miss.outcome == "warming":
        outcome, note = "not_yet", miss.note
    else:  # (files it does not read beside a miss: the note says; none it reads: exit 3's)
        outcome = "nothing_readable" if miss.outcome == "unread" else "miss"
        note = "; ".join(w for w in (ranking.no_answer, miss.note) if w)
    reply: Reply = Output(
        {"query": words, "ranker": ranking.profile, "coverage": coverage, "outcome": outcome},
        results,
        [],
        tail={
            "limit_reached": len(results) == limit,
            "candidates_cut": bool(ranking.truncated),
            **bound.unread(miss.not_read if not results else (), outcome),
            **bound.envelope(note),
        },
    ).document()
    bound.fit_list(reply, "results", bound.max_chars())

    def after() -> None:
        from rq_engine.store import usage

        usage.record(
            sess.conn,
            source="mcp",
            flags=usage.flags_key("text", ranker if ranker != RANKERS[0] else ""),
            # (nothing readable is a miss against a ready index, for the counters, as rq's)
            outcome={"hit": "hit", "miss": "miss", "nothing_readable": "miss"}.get(
                outcome, "warming"
            ),
            on_complete=not real.warming,
        )
        warm = _warm(sess, handoff)
        if warm is not None:
            warm()

    return reply, after


def _not_yet(words: str, ranker: str, why: str) -> Reply:
    return Output(
        {"query": words, "ranker": ranker, "coverage": "never", "outcome": "not_yet"},
        [],
        [],
        tail={"limit_reached": False, "candidates_cut": False, **bound.envelope(why)},
    ).document()


def _warm(sess: Session, handoff: Checkout | None) -> After:
    """Leftover warming, handed to the warmer after the reply."""
    if handoff is None:
        return None

    def start() -> None:
        from rq_engine.search.handoff import start_warmer

        start_warmer(sess.conn, handoff)

    return start
