"""The picker's empty query: the recent picks, then the definitions of the files being worked on.

A mixin of PickerScreen (rq_tui.picker), which owns the query, the generations
and the drawing of symbol batches. An empty query ranks nothing; where fzf lists
everything, the picker lists what is most likely wanted next:

- the recent picks (rq_tui.history), newest first, drawn at once (a small file);
- then the definitions of the active files — edited and branch files, newest
  first, then the latest commits' files (rq_engine.search.active) — each file's
  in line order, a definition already listed as a pick left out. They are asked
  in the "search" worker group, so the next keystroke supersedes them, and come
  as one message.

A muted heading above the list says what it is (fzf's --header); any other
list replaces it. The list is asked again when the index changes under it (a
warmer took in an edit), keeping the highlighted row. Enter on an empty query
acts once the whole list is in, as it waits for a typed query's final answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from rq_engine.search.types import CancelToken, Hit
from rq_tui.results import ResultList

if TYPE_CHECKING:
    from textual.screen import Screen

    from rq_tui.history import RecentPicks
    from rq_tui.session import SearchSession

    _Base = Screen[None]
else:
    _Base = object


@dataclass
class ActiveListed(Message):
    """The active files' definitions for an empty query (`note`: why there are none)."""

    generation: int
    query: str
    hits: list[Hit]
    note: str = ""


def heading(picks: int, hits: list[Hit]) -> str:
    """`empty query: 2 recent picks, then 14 definitions in 3 active files (1 edited,
    2 committed lately) — type to search`; "" for an empty list."""
    parts = []
    if picks:
        parts.append(f"{_n(picks, 'recent pick')}")
    if hits:
        why: dict[tuple[str, str], str] = {}
        for h in hits:
            why.setdefault((h.root, h.path), h.score.parts[0][0] if h.score.parts else "")
        tally: dict[str, int] = {}
        for reason in why.values():
            tally[reason] = tally.get(reason, 0) + 1
        reasons = ", ".join(f"{n} {r}" for r, n in tally.items() if r)
        files = _n(len(why), "active file") + (f" ({reasons})" if reasons else "")
        parts.append(f"{'then ' if picks else ''}{_n(len(hits), 'definition')} in {files}")
    if not parts:
        return ""
    return "empty query: " + ", ".join(parts) + " — type to search"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _key(hit: Hit) -> tuple[str, str, str, str]:
    # (a pick's line may have moved since it was picked: its name and file say which it is)
    return (hit.root.rstrip("/"), hit.path, hit.qualified, hit.kind)


class EmptyQuery(_Base):
    # Set by PickerScreen.__init__.
    session: SearchSession
    recent: RecentPicks
    cwd: str
    all_repos: bool
    text_mode: bool
    generation: int
    count: int | None
    note: str
    rendered: deque[tuple[int, str, int, bool]]
    # PickerScreen's and KeyActions' methods used here
    answer_settled: Callable[[str], None]
    _refresh_status: Callable[[], None]
    _highlight_changed: Callable[[], None]

    picks: list[Hit]  # the recent picks the empty list starts with
    empty_generation = 0  # the search whose empty list the list shows (0: none)

    def show_empty(self, query: str, token: CancelToken, *, again: bool = False) -> None:
        """List the recent picks now and ask for the active files' definitions (`again`:
        the index changed under an empty list already shown: only the latter)."""
        results = self.query_one("#results", ResultList)
        if not (again and self.empty_generation):
            scope = None if self.all_repos else self.cwd
            self.picks = self.recent.recent(scope)
            self.count = None
            if self.picks:
                results.show_hits(
                    self.picks,
                    self.cwd,
                    self.all_repos,
                    keep=False,
                    heading=heading(len(self.picks), []),
                )
                self.count = len(self.picks)
                self._highlight_changed()
            else:
                results.show_placeholder("")
            self._refresh_status()
        self.empty_generation = self.generation
        self._list_active(query, token, self.generation)

    def left_empty(self) -> None:
        """The query is no longer empty (or is in text mode): the empty list is gone."""
        self.empty_generation = 0

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _list_active(self, query: str, token: CancelToken, generation: int) -> None:
        try:
            hits = self.session.active(cancel=token)
        except Exception as e:  # a busy or broken store: the picks stay listed, and why
            self.post_message(ActiveListed(generation, query, [], f"active files: {e}"))
            return
        if hits is not None and not token.cancelled:
            self.post_message(ActiveListed(generation, query, hits))

    def on_active_listed(self, msg: ActiveListed) -> None:
        if msg.generation != self.generation or self.text_mode or not self.empty_generation:
            return  # a superseded keystroke's list
        picked = {_key(h) for h in self.picks}
        active = [h for h in msg.hits if _key(h) not in picked]
        listed = self.picks + active
        results = self.query_one("#results", ResultList)
        self.rendered.append((msg.generation, "active", len(listed), True))
        if listed:
            keep = results.highlighted not in (None, 0)  # (a row moved to while it came)
            results.show_hits(
                listed,
                self.cwd,
                self.all_repos,
                keep=keep,
                heading=heading(len(self.picks), active),
            )
            self._highlight_changed()
        self.count = len(listed) or None
        self.note = msg.note
        self._refresh_status()
        self.answer_settled(msg.query)
