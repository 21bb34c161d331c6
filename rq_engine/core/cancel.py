"""Cancellation handed down into long work: a search, an indexing pass, a wait. Stdlib only.

One token type for every layer (the picker's keystroke, Ctrl-C, a wait budget,
an early answer), so the indexer and the search pipeline stop the same way.
"""

from __future__ import annotations

import threading


class Cancelled(Exception):
    """Raised inside a search when its token is cancelled (the next keystroke arrived)."""


class CancelToken:
    """A cancel flag handed down into a search or a pass; checked between batches and inside scans."""

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

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once when cancelled; True if cancelled."""
        return self._event.wait(seconds)
