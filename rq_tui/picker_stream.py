"""The picker's symbol batches: the search worker, and drawing what it streams.

A mixin of PickerScreen (rq_tui.picker), which owns the query and the
generations. Batches come back as messages; a batch older than the newest one
of the current search is dropped unrendered, and a stale search's batches are
dropped entirely. An intermediate batch waits a frame for the next, and
until STREAM_HOLD after the key (one frame drawn instead of two). "no matches" appears only when a search has finished
empty and nothing newer arrived within NO_MATCH_DELAY.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from textual import work
from textual.timer import Timer

from rq_engine.core.errors import RqError
from rq_engine.search.types import Batch, CancelToken
from rq_tui.picker_messages import BatchArrived, SearchFailed
from rq_tui.results import ResultList
from rq_tui.session import SearchSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[None]
else:
    _Base = object

# Long enough to cover the gap between a finished empty search and the next
# keystroke's first batch when typing (~100-150 ms between keys), short
# enough that a real miss is reported at once.
NO_MATCH_DELAY = 0.15
# An intermediate batch is drawn if no later one arrives within this (s): one frame.
STREAM_FRAME = 0.016
# ... and not before this long after the key (s). A search that ends by then draws
# one frame, its answer: drawing an early layer's batch costs the UI thread a full
# frame (~8-10 ms on Linux's index) while the search still needs the interpreter,
# which is what made the slow keystrokes slow (docs/benchmarks.md). A slower search
# still shows its early rows, 45 ms after the key: before a wait is noticed.
STREAM_HOLD = 0.045


class Streaming(_Base):
    # Set by PickerScreen.__init__.
    session: SearchSession
    cwd: str
    all_repos: bool
    limit: int
    generation: int
    newest_seq: dict[int, int]
    shown_generation: int
    query_started: float
    state: str
    count: int | None
    latency_ms: float | None
    note: str
    progress: str
    rendered: deque[tuple[int, str, int, bool]]
    final_query: str | None
    final_rendered_at: float
    engine_ms: float
    _no_match_timer: Timer | None
    _held: BatchArrived | None
    _held_timer: Timer | None
    _again: set[int]
    # PickerScreen's and KeyActions' methods used here
    answer_settled: Callable[[str], None]
    _refresh_status: Callable[[], None]
    _highlight_changed: Callable[[], None]

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, query: str, token: CancelToken, generation: int, all_repos: bool) -> None:
        seq = 0

        def deliver(batch: Batch) -> None:
            nonlocal seq
            seq += 1
            self.newest_seq[generation] = seq
            self.post_message(BatchArrived(generation, seq, query, batch))

        try:
            self.session.run(
                query, all_repos=all_repos, limit=self.limit, cancel=token, on_batch=deliver
            )
        except RqError as e:
            self.post_message(SearchFailed(generation, e.message))
        except Exception as e:  # a bug in a layer must not take the picker down
            self.post_message(SearchFailed(generation, f"search failed: {type(e).__name__}: {e}"))

    def on_batch_arrived(self, msg: BatchArrived) -> None:
        if msg.generation != self.generation:
            return  # a cancelled search's late batch
        if msg.seq < self.newest_seq.get(msg.generation, 0):
            return  # superseded before we got to draw it
        if not msg.batch.final:
            # Hold an intermediate batch for a frame, and until STREAM_HOLD after
            # the key: if the next layer lands within it (the usual case on an
            # indexed repo), one frame is drawn instead of two, and the search
            # thread is not slowed by rendering.
            self._held = msg
            if self._held_timer is None:
                waited = time.perf_counter() - self.query_started
                self._held_timer = self.set_timer(
                    max(STREAM_FRAME, STREAM_HOLD - waited), self._draw_held
                )
            return
        self._drop_held()
        self._draw(msg)

    def _draw_held(self) -> None:
        msg, self._held, self._held_timer = self._held, None, None
        if msg is not None and msg.generation == self.generation:
            self._draw(msg)

    def _drop_held(self) -> None:
        if self._held_timer is not None:
            self._held_timer.stop()
        self._held = self._held_timer = None

    def _draw(self, msg: BatchArrived) -> None:
        batch = msg.batch
        self.rendered.append((msg.generation, batch.layer, len(batch.hits), batch.final))
        self.state = batch.state or self.state
        self.note = "; ".join(batch.notes)
        results = self.query_one("#results", ResultList)
        if batch.hits:
            self._cancel_no_match()
            keep = (
                self.shown_generation == msg.generation or msg.generation in self._again
            ) and results.highlighted not in (None, 0)
            self.shown_generation = msg.generation
            results.show_hits(batch.hits, self.cwd, self.all_repos, keep=keep)
            self.count = len(batch.hits)
            self._highlight_changed()  # now, so the side pane lands in the same frame
        elif batch.final:
            self.count = 0
            self._miss_later(msg.generation, self._show_no_matches)
        if batch.final:
            # Keystroke to results drawn into the widgets; the paint that follows
            # (~3 ms) is left out so the status line lands in the same frame.
            self.latency_ms = (time.perf_counter() - self.query_started) * 1000
            self.engine_ms = batch.elapsed_ms
            self.newest_seq.pop(msg.generation, None)
            self.call_after_refresh(self._stamp, msg.generation, msg.query)
        self._refresh_status()
        if batch.final:
            self.answer_settled(msg.query)

    def _stamp(self, generation: int, query: str) -> None:
        if generation == self.generation:
            self.final_rendered_at = time.perf_counter()
            self.final_query = query

    def _miss_later(self, generation: int, show: Callable[[int], None]) -> None:
        """`show(generation)` after NO_MATCH_DELAY, unless a newer answer came first."""
        self._cancel_no_match()
        self._no_match_timer = self.set_timer(NO_MATCH_DELAY, lambda: show(generation))

    def _show_no_matches(self, generation: int) -> None:
        if generation != self.generation:
            return
        text = {
            "warming": "no matches yet: the index is still warming",
            "never": "no matches: this directory is not indexed (rq --index)",
        }.get(self.state, "no matches")
        if self.progress.startswith("live scan"):
            text = "no matches in the scanned files"
        self.query_one("#results", ResultList).show_placeholder(text)

    def _cancel_no_match(self) -> None:
        if self._no_match_timer is not None:
            self._no_match_timer.stop()
            self._no_match_timer = None
