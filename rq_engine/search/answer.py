"""What a query's answer is made of: the wait policy a face picks, the progress it is told, the
answer it renders; and the two rules of a warming answer (the leaf tier's text, literal hits).

Stdlib + rq_engine.core and the search result types only (the `rq -q` hot path imports it).
(`Wait`, the policy, lives in rq_engine.core.wait: the text layer picks one too.)
"""

from __future__ import annotations

import time

from rq_engine.core.query import Query, asks_constructor
from rq_engine.core.record import Record
from rq_engine.search.types import Hit

# Query leaves that name a constructor (`Foo.new`): their tier is the class's files.
_LITERAL = frozenset({"exact", "prefix", "path"})


class Progress(Record):
    """Warming as a waiting face sees it: files parsed of those to parse, seconds waited."""

    __slots__ = ("root", "done", "total", "elapsed", "waiting_on")
    root: str
    done: int
    total: int
    elapsed: float
    waiting_on: str  # "index" (this process indexes) | "warmer" (another process does)

    def __init__(self, root: str, done: int, total: int, elapsed: float, waiting_on: str) -> None:
        self.root = root
        self.done = done
        self.total = total
        self.elapsed = elapsed
        self.waiting_on = waiting_on


class Answer(Record):
    """One query's answer. `outcome`: hit | miss (definitive: the index is complete) |
    warming (nothing yet, and the index is not complete) | unread (nothing to match:
    the complete index of the repository holds no file rq reads). `state` is the coverage
    of the searched repository when the answer was made: never | warming | complete.
    `not_read`, on a miss, is what the repository holds that no plugin reads:
    ((language name, files), ...), most first (lang/unread.py)."""

    __slots__ = (
        "hits",
        "outcome",
        "state",
        "root",
        "repository",
        "interrupted",
        "note",
        "not_read",
        "boost_note",
    )
    hits: list[Hit]
    outcome: str
    state: str
    root: str | None
    repository: str | None
    interrupted: bool
    note: str
    not_read: tuple[tuple[str, int], ...]
    boost_note: str  # why a context boost did not apply ("branch boost skipped: …"), or ""

    def __init__(
        self,
        hits: list[Hit],
        outcome: str,
        state: str,
        root: str | None = None,
        repository: str | None = None,
        interrupted: bool = False,
        note: str = "",
        not_read: tuple[tuple[str, int], ...] = (),
        boost_note: str = "",
    ) -> None:
        self.hits = hits
        self.outcome = outcome
        self.state = state
        self.root = root
        self.repository = repository
        self.interrupted = interrupted
        self.note = note
        self.not_read = not_read
        self.boost_note = boost_note


def left_ms(deadline: float | None) -> int | None:
    """Milliseconds until `deadline` (a monotonic instant), None when there is none."""
    return None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))


def left_s(deadline: float | None) -> float:
    """Seconds a git call may take before `deadline`: at most GIT_TIMEOUT, at least 0.1."""
    from rq_engine.index.gitstate import GIT_TIMEOUT

    return (
        GIT_TIMEOUT if deadline is None else max(0.1, min(GIT_TIMEOUT, deadline - time.monotonic()))
    )


def tier_leaf(q: Query) -> str:
    """What a file must hold for a literal answer to `q` to live in it."""
    if q.looks_like_path:
        return q.raw
    if asks_constructor(q):
        return q.scope[-1]  # `Foo.new`: Foo's own file, whatever its constructor is called
    return q.leaf


def literal(hits: list[Hit]) -> bool:
    return any(h.layer in _LITERAL for h in hits)
