"""Cancellation handed down into long work: a search, an indexing pass, a wait. Stdlib only.

One token type for every layer (the picker's keystroke, Ctrl-C, a wait budget,
an early answer), so the indexer and the search pipeline stop the same way.
"""

from __future__ import annotations

import time


class Cancelled(Exception):
    """Raised inside a search when its token is cancelled (the next keystroke arrived)."""


class CancelToken:
    """A cancel flag handed down into a search or a pass; checked between batches and inside scans.

    A plain flag, not a threading.Event: setting and reading one attribute is atomic
    under the GIL, and `threading` costs ~1 ms to import on the `rq -q` hot path.
    """

    __slots__ = ("_set",)

    # A waiter notices a cancel within this long (s).
    WAKE = 0.01

    def __init__(self) -> None:
        self._set = False

    def cancel(self) -> None:
        self._set = True

    @property
    def cancelled(self) -> bool:
        return self._set

    def check(self) -> None:
        if self._set:
            raise Cancelled()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking within WAKE when cancelled; True if cancelled."""
        end = time.monotonic() + seconds
        while not self._set:
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(left, self.WAKE))
        return self._set
