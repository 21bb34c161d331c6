"""find_symbol: `rq -q`'s answer — same service, same ranking, same result objects — bounded.

The query goes through QueryService.answer with a program's wait policy, so
every call applies the freshness and warming rules (a file edited since it was
indexed is re-read before it is shown; a miss asks git what moved). Results are
search/render.hit_to_json's objects, the ones `rq -q --json` prints, plus the
margin over the next result. Filters (kinds, path_prefix) apply to a wider
candidate list (FILTER_POOL), so a filter never turns a limit into "no results";
without them the call asks for exactly `limit`, as `rq -q --limit N` does.

Runs in the engine process; never imports mcp.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rq_engine.core.printers import Output
from rq_engine.core.query import names_nothing
from rq_engine.mcp import bound
from rq_engine.mcp.schema import DEFAULT_LIMIT
from rq_engine.mcp.scope import Session
from rq_engine.search.render import hit_to_json
from rq_engine.search.service import Answer
from rq_engine.search.types import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.search.anchor import Anchor

# Candidates a filtered query ranks before filtering.
FILTER_POOL = 200

Reply = dict[str, Any]
After = Callable[[], None] | None


def outcome_of(a: Answer) -> str:
    """hit | miss | nothing_readable | not_yet: the CLI's exit 0 / 1 / 3 / 2."""
    if a.hits:
        return "hit"
    return {"miss": "miss", "unread": "nothing_readable"}.get(a.outcome, "not_yet")


def find_symbol(sess: Session, args: dict[str, Any]) -> tuple[Reply, After]:
    query: str = args["query"]
    if not query.strip():
        raise bound.ToolError("query: must not be blank")
    if names_nothing(query):  # (as `rq -q ::` refuses it)
        raise bound.ToolError(f"query: {query.strip()!r} is only scope separators; give a name")
    limit: int = args.get("limit", DEFAULT_LIMIT)
    kinds: list[str] | None = args.get("kinds")
    prefix = _prefix(args.get("path_prefix"))
    explain = bool(args.get("explain", False))
    svc = sess.service(args.get("all_repos"))
    filtered = bool(kinds) or prefix is not None
    ask = max(FILTER_POOL, limit * 4) if filtered else limit
    # (the engine runs one call at a time: the anchor is this call's alone)
    svc.anchor = _anchor(sess, args.get("anchor"))
    try:
        answer = svc.answer(query, limit=ask, wait=sess.wait, cancel=sess.cancel)
    finally:
        svc.anchor = None
    objs = [(h, hit_to_json(h, svc.cwd, explain)) for h in answer.hits]
    outcome = outcome_of(answer)
    note = answer.note if outcome in ("not_yet", "nothing_readable") else ""
    if outcome == "miss" and answer.note:  # files here no plugin reads (rq -q's words)
        note = f"no match in the files rq reads; {answer.note}"
    if filtered:
        objs = [
            (h, o)
            for h, o in objs
            if (not kinds or h.kind in kinds) and (prefix is None or _under(str(o["path"]), prefix))
        ]
        if not objs and answer.hits:
            outcome = "filtered_out"
            note = (
                f"{len(answer.hits)} definitions match {query!r} but none of them passes"
                " the kinds/path_prefix filters; widen or drop the filters"
            )
    shown = objs[:limit]
    following = objs[limit] if len(objs) > limit else None
    results = []
    for i, (h, o) in enumerate(shown):
        nxt: Hit | None = shown[i + 1][0] if i + 1 < len(shown) else None
        if nxt is None and following is not None:
            nxt = following[0]
        o["margin"] = round(h.score.total - nxt.score.total, 2) if nxt is not None else None
        results.append(o)
    # the object `rq -q --json` prints, and what a call adds (the printer seam)
    reply: Reply = Output(
        {"query": query, "coverage": answer.state, "outcome": outcome},
        results,
        [],
        tail={
            "limit_reached": len(results) == limit,
            **bound.unread(answer.not_read if not answer.hits else (), outcome),
            **bound.envelope(note),
        },
    ).document()
    if outcome == "not_yet" and not note:
        reply["note"] = "the index is still warming: no match yet; retry, or see index_status"
    bound.fit_list(reply, "results", bound.max_chars())
    flags = "explain" if explain else ""

    def after() -> None:
        svc.finish(answer, flags=flags)  # counted, and leftover warming handed off (D13)

    return reply, after


def _prefix(raw: object) -> str | None:
    if raw is None:
        return None
    p = str(raw).replace(os.sep, "/")
    while p.startswith("./"):
        p = p[2:]
    return p or None


def _under(path: str, prefix: str) -> bool:
    return path.replace(os.sep, "/").startswith(prefix)


def _anchor(sess: Session, spec: str | None) -> Anchor | None:
    """`FILE:LINE[:COL]` relative to the repository, as `--anchor` takes it; a bad one is a
    tool error that names it (the server keeps serving)."""
    if spec is None:
        return None
    from rq_engine.core.errors import UsageError
    from rq_engine.search.anchor import Anchor

    try:
        return Anchor.parse(spec, str(sess.cwd))
    except UsageError as e:
        raise bound.ToolError(f"anchor: {e.message.removeprefix('--anchor ')}") from None
