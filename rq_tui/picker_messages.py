"""What the picker's worker threads post to its screen (rq_tui.picker and its mixins)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from rq_engine.search.types import Batch


@dataclass
class BatchArrived(Message):
    generation: int
    seq: int
    query: str
    batch: Batch


@dataclass
class SearchFailed(Message):
    generation: int
    message: str


@dataclass
class Described(Message):
    all_repos: bool
    repository: str | None
    state: str


@dataclass
class Watched(Message):
    """The index as the watcher found it: coverage, counts, and whether anyone committed."""

    state: str
    indexed: int
    seen: int
    changed: bool
