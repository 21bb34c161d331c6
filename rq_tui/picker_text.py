"""The picker's text mode: alt-t switches the query between symbol search and text search.

A mixin of PickerScreen (rq_tui.picker), which owns the query, the generations
and the drawing of symbol batches. In text mode each keystroke asks the one
text query service (`rq --text` semantics, text-ranker/bm25-v1 over the
persisted cache: rq_tui.session.SearchSession.run_text) in the same exclusive
"search" worker group as a symbol search, so a keystroke in either mode
supersedes the search before it; an answer whose generation is not the newest
is dropped. The answer arrives whole (one message), as TextHits the list,
Enter, --print and the marks handle like symbol hits.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from rq_engine.core.errors import RqError
from rq_engine.search.types import CancelToken
from rq_tui.results import ResultList
from rq_tui.text_results import TextResults
from rq_tui.widgets import QueryInput

if TYPE_CHECKING:
    from textual.screen import Screen

    from rq_tui.session import SearchSession

    _Base = Screen[None]
else:
    _Base = object


@dataclass
class TextArrived(Message):
    generation: int
    query: str
    results: TextResults
    elapsed_ms: float


@dataclass
class TextFailed(Message):
    generation: int
    message: str


class TextMode(_Base):
    # Set by PickerScreen.__init__.
    session: SearchSession
    cwd: str
    all_repos: bool
    limit: int
    text_mode: bool
    cache: str  # how the last text answer was served (hit, delta, rebuilt, memory, …)
    generation: int
    shown_generation: int
    rendered: deque[tuple[int, str, int, bool]]
    query_started: float
    count: int | None
    latency_ms: float | None
    engine_ms: float
    note: str
    settled: str | None
    accepting: bool
    _again: set[int]
    # PickerScreen's and KeyActions' methods used here
    start_search: Callable[..., None]
    hint: Callable[[], str]
    answer_settled: Callable[[str], None]
    _refresh_status: Callable[[], None]
    _highlight_changed: Callable[[], None]
    _cancel_no_match: Callable[[], None]
    _miss_later: Callable[[int, Callable[[int], None]], None]
    _stamp: Callable[[int, str], None]

    def action_toggle_text(self) -> None:
        """Switch the query between symbol and text search and ask it again."""
        self.text_mode = not self.text_mode
        self.cache = self.note = ""
        self.settled = None  # Enter waits for this mode's answer, not the list on screen
        query = self.query_one("#query", QueryInput)
        query.placeholder = self.hint()
        self.set_class(self.text_mode, "-text")  # (the query's border says so too)
        self.start_search(query.value)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _text_search(
        self, query: str, token: CancelToken, generation: int, all_repos: bool
    ) -> None:
        started = time.perf_counter()
        try:
            found = self.session.run_text(
                query, all_repos=all_repos, limit=self.limit, cancel=token
            )
        except RqError as e:
            self.post_message(TextFailed(generation, e.message))
            return
        except Exception as e:  # a bug in the service must not take the picker down
            self.post_message(
                TextFailed(generation, f"text search failed: {type(e).__name__}: {e}")
            )
            return
        if found is not None:
            elapsed = (time.perf_counter() - started) * 1000
            self.post_message(TextArrived(generation, query, found, elapsed))

    def on_text_arrived(self, msg: TextArrived) -> None:
        if msg.generation != self.generation or not self.text_mode:
            return  # a superseded keystroke's answer
        found = msg.results
        self.rendered.append((msg.generation, "text", len(found.hits), True))
        self.cache = found.cache
        notes = [found.cache_note] if found.cache_note else []
        if found.truncated:
            notes.append("truncated: the candidate ceiling cut some candidates")
        self.note = "; ".join(notes)
        results = self.query_one("#results", ResultList)
        self._cancel_no_match()
        if found.hits:
            keep = msg.generation in self._again and results.highlighted not in (None, 0)
            self.shown_generation = msg.generation
            results.show_hits(list(found.hits), self.cwd, self.all_repos, keep=keep)
            self.count = len(found.hits)
            self._highlight_changed()
        else:
            self.count = 0
            text = _miss_text(found)
            self._miss_later(msg.generation, lambda g: self._show_text_miss(g, text))
        self.latency_ms = (time.perf_counter() - self.query_started) * 1000
        self.engine_ms = msg.elapsed_ms
        self.call_after_refresh(self._stamp, msg.generation, msg.query)
        self._refresh_status()
        self.answer_settled(msg.query)

    def _show_text_miss(self, generation: int, text: str) -> None:
        if generation == self.generation and self.text_mode:
            self.query_one("#results", ResultList).show_placeholder(text)

    def on_text_failed(self, msg: TextFailed) -> None:
        """The service refused the query (RqError): one line on the status line, no rows."""
        if msg.generation != self.generation or not self.text_mode:
            return
        self.note = " ".join(msg.message.split())  # (one line, whatever the message holds)
        self.count = None
        self.accepting = False  # nothing to accept
        self.query_one("#query", QueryInput).frozen = False
        self._cancel_no_match()
        self.query_one("#results", ResultList).show_placeholder("")
        self._refresh_status()


def _miss_text(found: TextResults) -> str:
    if found.no_answer:
        return f"no good answer: {found.no_answer}"
    if found.warming:
        return "no matches yet: the index is still warming"
    return "no matches"
