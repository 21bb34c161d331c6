"""The wait policy a face picks for an answer on a warming index: how long it may block.

Shared by the symbol search and the text layer (a text query is brought up to
date under the same rules), so it lives below both. Stdlib + rq_engine.core only.
"""

from __future__ import annotations

from rq_engine.core.env import env_ms
from rq_engine.core.record import Record

# Programs (a pipe, --json) wait this long for a warming answer (RQ_WAIT_BUDGET_MS).
WAIT_BUDGET_MS = 60_000


class Wait(Record):
    """How long an answer may wait on warming: None = until answered (a person at a
    terminal; Ctrl-C is the escape), 0 = not at all (--no-wait), else milliseconds."""

    __slots__ = ("budget_ms",)
    budget_ms: int | None

    def __init__(self, budget_ms: int | None) -> None:
        self.budget_ms = budget_ms

    @staticmethod
    def for_face(wait_ms: int | None, interactive: bool) -> Wait:
        """--wait/--no-wait when given; else unbounded for a person, the budget for programs."""
        if wait_ms is not None:
            return Wait(wait_ms)
        if interactive:
            return Wait(None)
        return Wait(env_ms("RQ_WAIT_BUDGET_MS", WAIT_BUDGET_MS))

    @property
    def none(self) -> bool:
        return self.budget_ms == 0


__all__ = ["WAIT_BUDGET_MS", "Wait"]
