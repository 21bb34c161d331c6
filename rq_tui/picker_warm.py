"""The picker's warming: start a warmer for a repository that needs one, and follow it.

A mixin of PickerScreen (rq_tui.picker), which owns the query, the search and the
status line. A never-indexed, warming or unchecked repository gets its warmer (a
detached process); while it warms, a watcher looks at the coverage every WATCH_EVERY
and re-runs the query when the warmer committed, so results appear as files are
indexed; an open picker asks again every REWARM_EVERY whether warming is needed.
An untracked plain directory is scanned once, live, instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer
from textual.widgets import Input

from rq_tui.picker_messages import SearchFailed, Watched

if TYPE_CHECKING:
    from textual.screen import Screen

    from rq_tui.session import SearchSession

    _Base = Screen[None]
else:
    _Base = object

# While the index warms, how often the picker looks at its coverage and, when a
# warmer committed since, re-runs the query so results appear as files are indexed (s).
WATCH_EVERY = 0.25
# How often an open picker asks again whether its repository needs warming (s): the
# recheck window (RQ_WARM_RECHECK_MS), so edits made while it is open are picked up.
REWARM_EVERY = 10.0


class Warming(_Base):
    # Set by PickerScreen.__init__.
    session: SearchSession
    generation: int
    state: str
    progress: str
    repository: str | None
    all_repos: bool
    empty_generation: int
    _watch_timer: Timer | None
    # PickerScreen's methods used here
    start_search: Callable[..., None]
    _refresh_status: Callable[[], None]
    _describe: Callable[[bool], object]

    def _rewarm(self) -> None:
        # (a search is typed against an index the developer keeps editing under it)
        if self._watch_timer is None and not self.progress.startswith("live scan"):
            self._warm_repository()

    @work(thread=True, group="warm", exit_on_error=False)
    def _warm_repository(self) -> None:
        # A never-indexed, warming or unchecked repository gets its warmer (a detached
        # process: never the fork pool from these threads); the watcher follows it.
        try:
            started = self.session.warm()
        except Exception as e:  # the store may be busy or broken: say so, keep searching
            self.post_message(SearchFailed(self.generation, f"warming failed: {e}"))
            return
        if started is not None and started.startswith("live:"):
            self.app.call_from_thread(self._live_scanned, int(started[5:]))
        elif started is not None:
            if started == "here":  # warmed: an empty list may have more to show now
                self.app.call_from_thread(self._warmed_here)
            self.app.call_from_thread(self._start_watching)

    def _live_scanned(self, files: int) -> None:
        self.progress = f"live scan of {files} files (rq --index keeps an index)"
        query = self.query_one("#query", Input).value
        if query.strip():
            self.start_search(query, again=True)
        self._refresh_status()

    def _warmed_here(self) -> None:
        query = self.query_one("#query", Input).value
        if self.empty_generation and not query.strip():
            self.start_search(query, again=True)

    def _start_watching(self) -> None:
        if self._watch_timer is None:
            self._watch_timer = self.set_interval(WATCH_EVERY, self._poll_index)

    @work(thread=True, group="watch", exclusive=True, exit_on_error=False)
    def _poll_index(self) -> None:
        try:
            state, indexed, seen = self.session.coverage()
            changed = self.session.changed()
        except Exception:
            return
        self.post_message(Watched(state, indexed, seen, changed))

    def on_watched(self, msg: Watched) -> None:
        was, self.state = self.state, msg.state
        if self.repository is None:
            self._describe(self.all_repos)  # a first warm just named the repository
        stopped = False
        if msg.state == "complete":
            self.progress = ""
            if self._watch_timer is not None:
                self._watch_timer.stop()
                self._watch_timer = None
                stopped = True
        elif msg.seen:
            self.progress = f"{msg.indexed}/{msg.seen} files indexed"
        else:
            self.progress = f"{msg.indexed} files indexed so far"
        query = self.query_one("#query", Input).value
        if msg.changed or (msg.state == "complete" and was != "complete"):
            if query.strip():
                self.start_search(query, again=True)  # results appear as the warmer commits
        if (msg.changed or stopped) and self.empty_generation and not query.strip():
            # (a warm that just ended may have taken in edits: where the work is moved)
            self.start_search(query, again=True)
        self._refresh_status()
