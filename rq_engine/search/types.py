"""Result types shared by the pipeline and every face (CLI, picker, MCP).

Faces render these objects; they never re-score or re-rank. Stdlib only.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


class Cancelled(Exception):
    """Raised inside a search when its token is cancelled (the next keystroke arrived)."""


class CancelToken:
    """A cancel flag handed down into a search; checked between batches and inside scans."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled()


@dataclass(frozen=True, slots=True)
class Score:
    """An additive score: `total` is exactly the sum of `parts` (feature name, contribution).

    `parts` is in display order; `--explain`, the picker's side pane and MCP all
    render this same tuple.
    """

    total: float
    parts: tuple[tuple[str, float], ...]

    @staticmethod
    def of(parts: list[tuple[str, float]]) -> Score:
        return Score(total=sum(v for _, v in parts), parts=tuple(parts))


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked definition."""

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
    layer: str = "exact"  # which pipeline layer produced it: exact|prefix|fuzzy|typo|path|live
    positions: tuple[int, ...] = ()  # indexes into `name` of the matched letters (highlighting)
    visibility: str = "unknown"
    parent: str | None = None

    @property
    def abspath(self) -> str:
        return f"{self.root.rstrip('/')}/{self.path}"


@dataclass(slots=True)
class Batch:
    """What the pipeline yields: the full ranked list as known so far.

    Each batch supersedes the previous one (a face replaces its list), so a
    consumer that only keeps the last batch has the final answer. `final` is
    True on the last batch of a search; `state` is the coverage state of the
    searched repository ("never" | "warming" | "complete").
    """

    hits: list[Hit]
    layer: str
    final: bool = False
    state: str = "complete"
    elapsed_ms: float = 0.0
    notes: list[str] = field(default_factory=list)
