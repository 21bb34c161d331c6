"""The picker's handle on the engine's query service: one search at a time, cancellable, plus warming.

No textual or rich here, so it can be driven (and tested) without a UI. The
answer semantics live in rq_engine.search.service (shared with `rq -q` and the
MCP face); this adds what a long-lived picker needs around them: a lock (the
picker's search worker threads share one sqlite3 connection, opened with
check_same_thread=False), a cancel token per keystroke, and the warmer. An empty
query asks `active` instead of searching: the definitions of the files being worked on.

Warming from the picker never starts the fork pool from the picker's own
threads: `warm` hands the repository to the detached `rq --warm` child; only
with RQ_WARM_DETACH=0 (tests, debugging) does it warm here, in the calling
thread on a connection of its own, parsing in-process (workers=1).

Text mode asks rq_engine.text.service.query_live, the one text query service
`rq --text` calls; it opens its own read-only connections, so it takes a lock of
its own: one text query at a time, and a query whose token was cancelled while
it waited is never run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from rq_engine.search.service import QueryService
from rq_engine.search.types import Batch, Cancelled, CancelToken, Hit
from rq_tui.text_results import PROFILE, TextResults, results_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.search.anchor import Anchor


class SearchSession:
    def __init__(
        self, cwd: Path, db_path: Path | None = None, anchor: Anchor | None = None
    ) -> None:
        self.cwd = cwd
        self.db_path = db_path
        self.anchor = anchor  # where symbol queries are asked from (--anchor: an editor's cursor)
        self._lock = threading.Lock()
        self._text_lock = threading.Lock()
        self._services: dict[bool, QueryService] = {}
        self._version: int | None = None
        self._symbols: tuple[object, ...] | None = None

    def _service(self, all_repos: bool) -> QueryService:
        # Called with the lock held; the two services (this repository, all) share
        # one connection.
        svc = self._services.get(all_repos)
        if svc is None:
            other = self._services.get(not all_repos)
            conn = other.conn if other is not None else None
            svc = QueryService(
                self.cwd,
                all_repos=all_repos,
                db_path=self.db_path,
                source="picker",
                conn=conn,
                anchor=self.anchor,
            )
            self._services[all_repos] = svc
        return svc

    def describe(self, all_repos: bool) -> tuple[str | None, str]:
        """(repository, coverage state) of the working directory, opening the index if needed."""
        with self._lock:
            repository, state, _ = self._service(all_repos).describe()
            return repository, state

    def coverage(self) -> tuple[str, int, int]:
        """(state, files indexed, files seen) of the working directory's repository."""
        with self._lock:
            return self._service(False).coverage()

    def changed(self) -> bool:
        """True when the index's symbols changed since the last call (a warmer's batch):
        the picker then re-runs its query so results appear as they are indexed. Any
        commit elsewhere moves SQLite's data_version (~free to read); only then are the
        newest symbol id and the coverage compared (a verdict or counter write alone
        changes neither)."""
        with self._lock:
            svc = self._service(False)
            v = svc.data_version()
            if v == self._version:
                return False
            self._version = v
            mark = svc.index_mark()
            moved = self._symbols is not None and mark != self._symbols
            self._symbols = mark
            return moved

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
            svc = self._service(all_repos)
            try:
                for batch in svc.stream(query, limit=limit, cancel=cancel):
                    if cancel.cancelled:
                        return False
                    on_batch(batch)
            except Cancelled:
                return False
            # The pipeline may also stop quietly (no final batch) when cancelled.
            return not cancel.cancelled

    def active(self, *, cancel: CancelToken) -> list[Hit] | None:
        """The empty query's list: the definitions in the working directory's active files
        (rq_engine.search.active: edited and branch files, then the latest commits'), as
        they are on disk (a moved file is reindexed first). None when cancelled before it
        started; [] outside an indexed repository."""
        from rq_engine.search.active import active_definitions

        with self._lock:
            if cancel.cancelled:
                return None
            return active_definitions(self._service(False).conn, self.cwd)

    def run_text(
        self, text: str, *, all_repos: bool, limit: int, cancel: CancelToken
    ) -> TextResults | None:
        """One text query (`rq --text` semantics, bm25-v1 over the persisted cache), with
        the explain parts. None when it was cancelled: before it started (a later key came
        while an earlier query ran) or while it ran — the service checks the token before
        each step and each term's postings, so a superseded query stops there (a full
        build it started meanwhile is not interrupted). RqError passes through."""
        from rq_engine.core.cancel import Cancelled
        from rq_engine.text.service import query_live

        with self._text_lock:
            if cancel.cancelled:
                return None
            try:
                answer = query_live(
                    self.cwd,
                    text,
                    profile=PROFILE,
                    limit=limit,
                    explain=True,
                    all_repos=all_repos,
                    cancel=cancel,
                )
            except Cancelled:
                return None
        if cancel.cancelled:
            return None
        return results_of(answer, self.cwd)

    def warm(self) -> str | None:
        """Start warming the working directory's repository if it needs it: never
        indexed, warming, or complete but not checked lately. Returns "detached" (a
        warmer process runs), "here" (warmed in this thread, RQ_WARM_DETACH=0),
        "live:N" (an untracked plain directory: N files scanned into memory for this
        picker, not indexed), or None when nothing was needed. Call it from a worker
        thread."""
        from rq_engine.index import warm as warming

        with self._lock:
            svc = self._service(False)
            co = svc.needs_warming()
            if co is None:
                # an untracked plain directory: scan it once, live, for this picker
                live = svc.scan_live(workers=1)
                return None if live is None else f"live:{live.files}"
            if warming.detached():
                warming.hand_off(svc.conn, co)
                return "detached"
        from rq_engine.index import lock, owner
        from rq_engine.store.db import connect

        conn = connect(self.db_path)
        me = owner.me()
        try:
            if lock.claim(conn, co.identity, me):
                try:
                    warming.warm(conn, co, budget_ms=warming.warm_budget_ms(), workers=1)
                finally:
                    lock.release(conn, co.identity, me)
        finally:
            conn.close()
        return "here"

    def finish(self, outcome: str | None = None, state: str = "") -> None:
        """The picker is closing: count its search once (the last query's outcome:
        hit | miss | warming; None when nothing was searched) — not every keystroke —
        and reap warmer processes it started that have exited."""
        from rq_engine.index.warm import reap

        reap()
        if outcome is None or not self._lock.acquire(timeout=1.0):
            return
        try:
            from rq_engine.store import usage

            svc = self._service(False)
            usage.record(
                svc.conn,
                source="picker",
                flags="",
                outcome=outcome,
                on_complete=state == "complete",
            )
        except Exception:  # the store may be gone or busy: counting never fails a picker
            pass
        finally:
            self._lock.release()

    def close(self, timeout: float = 1.0) -> None:
        """Close the index, once the running search (already cancelled) has let go of it.

        If it has not within `timeout`, leave the connection to the process exit.
        """
        if not self._lock.acquire(timeout=timeout):
            return
        try:
            svc = self._services.pop(False, None)
            other = self._services.pop(True, None)
            for s in (svc, other):
                if s is not None:
                    s.close()  # (closing a shared connection twice is harmless)
        finally:
            self._lock.release()
