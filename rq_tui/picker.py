"""The picker screen: query input, live result list, explain pane, status line; search orchestration.

Every keystroke starts a search in one exclusive thread worker and cancels the
previous one through its CancelToken (kept in `tokens`, oldest first, so tests
can assert on it); its batches are drawn by rq_tui.picker_stream. Text mode
(alt-t) sends the same keystrokes to the text query service: rq_tui.picker_text.
An empty query lists the recent picks and the active files' definitions:
rq_tui.picker_empty.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from rq_engine.core.errors import RqError
from rq_engine.core.query import MAX_QUERY_CHARS
from rq_engine.search.types import CancelToken, Hit
from rq_tui import keys
from rq_tui.explain import ExplainPane
from rq_tui.history import QueryHistory, RecentPicks
from rq_tui.keys import Keymap
from rq_tui.picker_empty import EmptyQuery
from rq_tui.picker_keys import KeyActions
from rq_tui.picker_messages import BatchArrived, Described, SearchFailed
from rq_tui.picker_stream import Streaming
from rq_tui.picker_text import TextMode
from rq_tui.picker_warm import REWARM_EVERY, Warming
from rq_tui.results import ResultList
from rq_tui.session import SearchSession
from rq_tui.widgets import QueryInput, StatusLine

# Below this width the explain pane goes under the list instead of beside it.
NARROW_WIDTH = 100
# Below this height (and narrow) the explain pane is hidden (alt-p shows it).
SHORT_HEIGHT = 20
# After the first search starts, when the syntax highlighter is loaded (s).
PREWARM_AFTER = 0.3
HINT = "type a name, a fragment, a typo, Foo::Bar#baz"
TEXT_HINT = "type words: what it is or does (refund order total)"


class PickerScreen(Streaming, EmptyQuery, TextMode, Warming, KeyActions, Screen[None]):
    """No BINDINGS: every key goes through QueryInput, in order (rq_tui.keys)."""

    # (#list-heading: the empty query's heading; hidden in a short popup, where every
    # row is a result's. Its -listing class is its own, not the screen's: a class
    # toggled on the screen restyles every widget, ~6 ms on the first keystroke after
    # an empty query's list.)
    DEFAULT_CSS = """
    PickerScreen.-short.-narrow #side { display: none; }
    PickerScreen.-text #query { border: tall $accent; }
    #list-heading {
        display: none;
        height: 1;
        padding: 0 2;
        color: $text-muted;
        text-style: italic;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    #list-heading.-listing { display: block; }
    PickerScreen.-short #list-heading { display: none; }
    """

    def __init__(
        self,
        session: SearchSession,
        *,
        cwd: Path,
        query: str,
        all_repos: bool,
        limit: int,
        frozen_latency_ms: float | None = None,
        warm: bool = True,
        keymap: Keymap | None = None,
        history: QueryHistory | None = None,
        recent: RecentPicks | None = None,
        text: bool = False,
    ) -> None:
        """`text`: start in text mode (alt-t switches)."""
        super().__init__()
        self.keymap = keymap if keymap is not None else keys.keymap({})[0]
        self.history = history or QueryHistory()
        self.recent = recent or RecentPicks()
        self.settled = None
        self.accepting = False
        self.session = session
        self.warm_enabled = warm
        self.cwd = str(cwd)
        self.initial_query = query
        self.all_repos = all_repos
        self.limit = limit
        self.frozen_latency_ms = frozen_latency_ms
        self.tokens: list[CancelToken] = []  # one per search started, oldest first
        self.generation = 0
        self.newest_seq: dict[int, int] = {}
        self.shown_generation = 0  # the search whose hits the list shows
        self.query_started = 0.0
        self.repository: str | None = None
        self.state = "…"
        self.count: int | None = None
        self.latency_ms: float | None = None
        self.note = ""
        # What reached the screen, newest last: (generation, layer, hits, final).
        # Tests assert on it; bench/tui_latency.py reads final_query/final_rendered_at.
        self.rendered: deque[tuple[int, str, int, bool]] = deque(maxlen=256)
        self.final_query: str | None = None
        self.final_rendered_at = 0.0
        self.engine_ms = 0.0  # the pipeline's own time for the last final batch
        self._no_match_timer: Timer | None = None
        self._held: BatchArrived | None = None  # an intermediate batch waiting for its frame
        self._held_timer: Timer | None = None
        self._watch_timer: Timer | None = None
        self._again: set[int] = set()  # generations that re-ran the same query
        self._searched: str | None = None  # the query the newest search was started for
        self.progress = ""  # "120/300 files indexed" while the index warms
        self.text_mode = text  # the query is words for the text ranker (alt-t)
        self.cache = ""  # how the last text answer was served (hit, rebuilt, memory, …)
        self.picks: list[Hit] = []  # the recent picks an empty query lists first

    # --- layout -----------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield QueryInput(
            value=self.initial_query,
            placeholder=self.hint(),
            id="query",
            select_on_focus=False,
            keymap=self.keymap,
        )
        yield Static(id="list-heading", markup=False)
        with Horizontal(id="body"):
            yield ResultList(id="results")
            yield ExplainPane(id="side")
        yield StatusLine(id="status")

    def on_mount(self) -> None:
        results = self.query_one("#results", ResultList)
        results.can_focus = False
        results.on_heading = self._show_heading
        query = self.query_one("#query", QueryInput)
        query.on_action = self.run_key_action
        if self.app.is_headless:
            query.cursor_blink = False  # a blinking cursor would make snapshots racy
        query.focus()
        self.set_class(self.text_mode, "-text")
        self._refresh_status()
        # After the first frame: opening the index and the first search hold the
        # GIL for tens of ms in their thread, which would delay that frame.
        self.call_after_refresh(self._first_search)

    def _first_search(self) -> None:
        self._describe(self.all_repos)
        self.start_search(self.query_one("#query", Input).value)
        self.set_timer(PREWARM_AFTER, self._prewarm)
        if self.warm_enabled:
            self._warm_repository()
            self.set_interval(REWARM_EVERY, self._rewarm)

    def _show_heading(self, text: str) -> None:
        heading = self.query_one("#list-heading", Static)
        heading.update(text)
        heading.set_class(bool(text), "-listing")

    @work(thread=True, group="prewarm", exit_on_error=False)
    def _prewarm(self) -> None:
        # pygments costs ~160 ms to import and holds the GIL meanwhile: pay it
        # once, early, rather than in the middle of the first preview.
        from textual.highlight import highlight

        highlight("x = 1", language="python")

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")
        # A short terminal (an 80x24 pane's popup is 64x16) keeps its rows for results.
        self.set_class(event.size.height < SHORT_HEIGHT, "-short")

    # --- searching --------------------------------------------------------

    def hint(self) -> str:
        return TEXT_HINT if self.text_mode else HINT

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        # The input announces its initial value as a change once mounted, in an order
        # with the first search that load decides: a second search of the same query
        # (not `again`) landing after a key moved the highlight put it back on the first
        # row, so Enter opened the wrong result. The first search reads the value, and
        # a "change" to the query already searched is none.
        if self._searched is None or event.value == self._searched:
            return
        self.start_search(event.value)

    def start_search(self, query: str, *, again: bool = False) -> None:
        """Search for `query`; `again`: the same query re-run because the index changed
        (the highlighted result stays highlighted if it is still listed)."""
        if self.tokens:
            self.tokens[-1].cancel()
        self._searched = query
        self.newest_seq.clear()  # only the new search's batches matter now
        self.generation += 1
        if again:
            self._again.add(self.generation)
        self.query_started = time.perf_counter()
        token = CancelToken()
        self.tokens.append(token)
        self._cancel_no_match()
        self._drop_held()
        self.query_one("#side", ExplainPane).hold()
        n = len(query.strip())
        if not n and not self.text_mode:
            # (a blank text query shows nothing: the empty list is symbol mode's)
            self.show_empty(query, token, again=again)
            return
        self.left_empty()
        if not n or n > MAX_QUERY_CHARS:  # (over-long: refused as `rq -q` refuses it)
            token.cancel()
            self.count = None
            if self.text_mode:
                self.note = ""  # (a refused query's message goes with it)
            self.query_one("#results", ResultList).show_placeholder(
                f"the query is {n:,} characters long; the limit is {MAX_QUERY_CHARS:,}" if n else ""
            )
            self._refresh_status()
            self.answer_settled(query)
            return
        if self.text_mode:
            self._text_search(query, token, self.generation, self.all_repos)
        else:
            self._search(query, token, self.generation, self.all_repos)

    @on(SearchFailed)
    def _search_failed(self, msg: SearchFailed) -> None:
        if msg.generation == self.generation:
            self.note = msg.message
            self._refresh_status()
            self.accepting = False  # nothing to accept: the search failed
            self.query_one("#query", QueryInput).frozen = False
            self.notify(msg.message, severity="error", timeout=6, markup=False)

    @work(thread=True, group="describe", exit_on_error=False)
    def _describe(self, all_repos: bool) -> None:
        try:
            repository, state = self.session.describe(all_repos)
        except RqError as e:
            self.post_message(SearchFailed(self.generation, e.message))
            return
        self.post_message(Described(all_repos, repository, state))

    @on(Described)
    def _described(self, msg: Described) -> None:
        self.repository = msg.repository
        if self.state == "…":
            self.state = msg.state
        if msg.state != "complete" and msg.repository is not None:
            self._start_watching()  # someone (a warmer, rq -q) may be warming it
        self._refresh_status()

    def _refresh_status(self) -> None:
        latency = self.latency_ms
        if latency is not None and self.frozen_latency_ms is not None:
            latency = self.frozen_latency_ms
        self.query_one("#status", StatusLine).show(
            repository=self.repository,
            state=self.state,
            count=self.count,
            latency_ms=latency,
            all_repos=self.all_repos,
            note="; ".join(n for n in (self.progress, self.note) if n),
            marked=len(self.query_one("#results", ResultList).marked),
            mode="text" if self.text_mode else "",
            cache=self.cache if self.text_mode else "",
        )

    def outcome(self) -> tuple[str | None, str]:
        """What the picker's search came to, for the usage counters: (hit | miss |
        warming, or None when nothing was searched; the coverage state)."""
        if self.final_query is None or not self.final_query.strip():
            return None, self.state
        if self.count:
            return "hit", self.state
        return ("miss" if self.state == "complete" else "warming"), self.state

    # --- the side pane ----------------------------------------------------

    @on(ResultList.Highlighted)
    def _row_highlighted(self) -> None:
        self._highlight_changed()

    def _highlight_changed(self) -> None:
        results = self.query_one("#results", ResultList)
        side = self.query_one("#side", ExplainPane)
        side.follow(results.hits, results.highlighted, self.cwd, results.version)

    # --- mouse (keys: rq_tui.picker_keys) --------------------------------------

    @on(ResultList.Open)
    def _double_clicked(self) -> None:
        self.action_open()
