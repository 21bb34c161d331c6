"""The picker's handle on the engine: one index connection, one search at a time, cancellable.

No textual or rich here, so it can be driven (and tested) without a UI. The
picker's search worker threads call `run()`; a lock serialises them because
they share one sqlite3 connection (opened with check_same_thread=False by
rq_engine.store.db.connect). A new keystroke cancels the running search
through its CancelToken, so the next search waits at most one cancellation
check (the pipeline checks between layers and inside scans).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rq_engine.search.types import Batch, Cancelled, CancelToken

if TYPE_CHECKING:
    from rq_engine.search.pipeline import Searcher

STALE_AFTER = 1.0  # seconds a warming repository's Searcher is reused


class SearchSession:
    def __init__(self, cwd: Path, db_path: Path | None = None) -> None:
        self.cwd = cwd
        self.db_path = db_path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._searchers: dict[bool, Searcher] = {}
        self._made: dict[bool, float] = {}

    def _searcher(self, all_repos: bool) -> Searcher:
        # Called with the lock held. A Searcher reads the coverage state once; while
        # the repository is not complete (a warm may be running), take a fresh one
        # every STALE_AFTER so the status line follows the index (~1 ms: a few
        # SELECTs and stats, no git process).
        s = self._searchers.get(all_repos)
        now = time.monotonic()
        if s is not None and s.state != "complete" and now - self._made[all_repos] > STALE_AFTER:
            s = None
        if s is None:
            from rq_engine.search.pipeline import Searcher
            from rq_engine.store.db import connect

            if self._conn is None:
                self._conn = connect(self.db_path)
            s = Searcher(self._conn, self.cwd, all_repos=all_repos)
            self._searchers[all_repos] = s
            self._made[all_repos] = now
        return s

    def describe(self, all_repos: bool) -> tuple[str | None, str]:
        """(repository, coverage state) of the working directory, opening the index if needed."""
        with self._lock:
            s = self._searcher(all_repos)
            return s.repository, s.state

    def run(
        self,
        query: str,
        *,
        all_repos: bool,
        limit: int,
        cancel: CancelToken,
        on_batch: Callable[[Batch], None],
    ) -> bool:
        """Run one search, handing each batch to `on_batch`. False when it was cancelled."""
        with self._lock:
            if cancel.cancelled:
                return False
            s = self._searcher(all_repos)
            try:
                for batch in s.search(query, limit=limit, cancel=cancel):
                    if cancel.cancelled:
                        return False
                    on_batch(batch)
            except Cancelled:
                return False
            # The pipeline may also stop quietly (no final batch) when cancelled.
            return not cancel.cancelled

    def close(self, timeout: float = 1.0) -> None:
        """Close the index, once the running search (already cancelled) has let go of it.

        If it has not within `timeout`, leave the connection to the process exit.
        """
        if not self._lock.acquire(timeout=timeout):
            return
        try:
            self._searchers.clear()
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        finally:
            self._lock.release()
