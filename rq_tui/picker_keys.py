"""What the picker's keys do: selection, marks, accept, the explain pane, history.

A mixin of PickerScreen (rq_tui.picker), which owns the search; the key map
itself is rq_tui.keys and the dispatch in arrival order is QueryInput's. Split
from picker.py by concept: this module acts on what the screen shows and never
starts a search except by changing the query.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

from rq_tui.explain import ExplainPane
from rq_tui.history import QueryHistory
from rq_tui.results import ResultList
from rq_tui.widgets import QueryInput, location

if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[None]
else:
    _Base = object


class KeyActions(_Base):
    # Set by PickerScreen.__init__.
    history: QueryHistory
    cwd: str
    all_repos: bool
    # The query whose final answer the list shows (None: none yet). Enter waits for
    # the typed query's answer when the list still shows an older one.
    settled: str | None
    accepting: bool

    def run_key_action(self, action: str) -> None:
        """One picker action by its fzf-style name (keys.ACTIONS)."""
        handler = _HANDLERS.get(action)
        if handler is not None:
            handler(self)

    def _results(self) -> ResultList:
        return self.query_one("#results", ResultList)

    def _input(self) -> QueryInput:
        return self.query_one("#query", QueryInput)

    # --- accept / abort ---------------------------------------------------

    def action_open(self) -> None:
        """Enter: the marks, or the highlighted result of the query as typed."""
        results = self._results()
        if not results.marked and self.settled != self._input().value:
            # The last letters' search has not answered yet (keys came in a burst):
            # take its answer, not the list on screen. Keys typed after Enter are
            # ignored meanwhile, as Enter had been pressed after the query was done.
            self.accepting = True
            self._input().frozen = True
            return
        picks = results.picks()
        self.accepting = False
        self._input().frozen = False
        if picks:
            self.app.open_hits(picks, self._input().value)  # type: ignore[attr-defined]

    def answer_settled(self, query: str) -> None:
        """The list now shows `query`'s final answer: a pending Enter acts on it."""
        self.settled = query
        if self.accepting and query == self._input().value:
            self.action_open()

    def action_quit(self) -> None:
        self.app.quit_picker()  # type: ignore[attr-defined]

    # --- moving and marking -----------------------------------------------

    def action_move(self, delta: int) -> None:
        self._results().move(delta)

    def action_page(self, direction: int) -> None:
        self._results().page(direction)

    def action_edge(self, end: int) -> None:
        self._results().edge(last=end != 0)

    def _toggle(self) -> None:
        self._results().toggle_mark()
        self._marks_changed()

    def _toggle_all(self) -> None:
        self._results().toggle_all()
        self._marks_changed()

    def _deselect_all(self) -> None:
        self._results().clear_marks()
        self._marks_changed()

    def _marks_changed(self) -> None:
        self._refresh_status()  # type: ignore[attr-defined]

    # --- the explain pane -------------------------------------------------

    def action_toggle_side(self) -> None:
        side = self.query_one("#side", ExplainPane)
        side.display = not side.display
        self._highlight_changed()  # type: ignore[attr-defined]

    def _scroll_preview(self, lines: int = 0, pages: int = 0) -> None:
        scroll = self.query_one("#preview-scroll", VerticalScroll)
        if pages:
            step = max(1, scroll.scrollable_content_region.height - 1)
            lines = pages * step
        scroll.scroll_relative(y=lines, animate=False, immediate=True)

    # --- rq's own ---------------------------------------------------------

    def action_toggle_all_repos(self) -> None:
        self.all_repos = not self.all_repos
        self.state = "…"
        self._describe(self.all_repos)  # type: ignore[attr-defined]
        self.start_search(self._input().value)  # type: ignore[attr-defined]

    def action_copy(self) -> None:
        hit = self._results().highlighted_hit
        if hit is not None:
            text = location(hit, self.cwd)
            self.app.copy_to_clipboard(text)
            self.notify(f"copied {text}", timeout=2, markup=False)  # (a `[` in a path is text)

    def action_help(self) -> None:
        from rq_tui.help import HelpScreen

        self.app.push_screen(HelpScreen(self.app.key_help))  # type: ignore[attr-defined]

    def _recall(self, older: bool) -> None:
        query = self.history.prev(self._input().value) if older else self.history.next()
        if query is not None:
            self._input().value = query
            self._input().action_end()


_HANDLERS: dict[str, Callable[[KeyActions], None]] = {
    "accept": KeyActions.action_open,
    "abort": KeyActions.action_quit,
    "up": lambda s: s.action_move(-1),
    "down": lambda s: s.action_move(1),
    "page-up": lambda s: s.action_page(-1),
    "page-down": lambda s: s.action_page(1),
    "first": lambda s: s.action_edge(0),
    "last": lambda s: s.action_edge(-1),
    "toggle": KeyActions._toggle,
    "toggle-all": KeyActions._toggle_all,
    "deselect-all": KeyActions._deselect_all,
    "preview-up": lambda s: s._scroll_preview(lines=-1),
    "preview-down": lambda s: s._scroll_preview(lines=1),
    "preview-page-up": lambda s: s._scroll_preview(pages=-1),
    "preview-page-down": lambda s: s._scroll_preview(pages=1),
    "toggle-preview": KeyActions.action_toggle_side,
    "toggle-all-repos": KeyActions.action_toggle_all_repos,
    "toggle-text": lambda s: s.action_toggle_text(),  # type: ignore[attr-defined]  # (TextMode)
    "copy": KeyActions.action_copy,
    "help": KeyActions.action_help,
    "prev-history": lambda s: s._recall(older=True),
    "next-history": lambda s: s._recall(older=False),
    "ignore": lambda s: None,
}
