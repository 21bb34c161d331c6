"""Result types shared by the pipeline and every face (CLI, picker, MCP).

(`CancelToken`/`Cancelled` live in rq_engine.core.cancel and `Score` in
rq_engine.core.score, below the scorer that builds it; both are re-exported here.)

Faces render these objects; they never re-score or re-rank. Stdlib only.
"""

from __future__ import annotations

from rq_engine.core.cancel import Cancelled, CancelToken
from rq_engine.core.record import Record
from rq_engine.core.score import Score


class Hit(Record):
    """One ranked definition. Its fields are declared once, here (core/record builds the
    __init__, slots, equality and repr from them)."""

    root: str  # absolute checkout root the path is relative to
    path: str  # repo-relative, '/'-separated
    line: int
    end_line: int | None
    name: str
    qualified: str  # parent + language separator + name
    kind: str
    language: str
    repository: str  # logical identity (host/org/repo or local:/abs)
    score: Score
    layer: str = "exact"  # the pipeline layer that found it: exact|prefix|fuzzy|typo|path|live
    positions: tuple[int, ...] = ()  # indexes into `name` of the matched letters (highlighting)
    visibility: str = "unknown"
    parent: str | None = None

    @property
    def abspath(self) -> str:
        return f"{self.root.rstrip('/')}/{self.path}"


class Batch(Record):
    """What the pipeline yields: the full ranked list as known so far.

    Each batch supersedes the previous one (a face replaces its list), so a
    consumer that only keeps the last batch has the final answer. `final` is
    True on the last batch of a search; `state` is the coverage state of the
    searched repository ("never" | "warming" | "complete").
    """

    __slots__ = ("hits", "layer", "final", "state", "elapsed_ms", "notes")
    __hash__ = None  # type: ignore[assignment]  # mutable
    hits: list[Hit]
    layer: str
    final: bool
    state: str
    elapsed_ms: float
    notes: list[str]

    def __init__(
        self,
        hits: list[Hit],
        layer: str,
        final: bool = False,
        state: str = "complete",
        elapsed_ms: float = 0.0,
        notes: list[str] | None = None,
    ) -> None:
        self.hits = hits
        self.layer = layer
        self.final = final
        self.state = state
        self.elapsed_ms = elapsed_ms
        self.notes = [] if notes is None else notes


__all__ = ["Batch", "Cancelled", "CancelToken", "Hit", "Score"]
