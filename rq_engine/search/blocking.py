"""Blocking until answered: one query on an index that is warming or behind its work tree.

The query service (search/service.py) decides *whether* a query must wait; this
does the waiting, as the seed's "Partial indexing" asks:

- `warm`: a never-indexed or warming repository. Index in-process — active
  files, then the files holding the query's leaf, then the rest
  (index/tiers.py) — and answer once every literal match of the leaf is
  committed, or the sweep completes. A live warmer already sweeping is left to
  it (only this query's leaf tier is parsed here) and polled every
  POLL_INTERVAL; when it stops short, this process takes over.
- `caught_up`: a complete index the work tree moved under. Ask git what moved,
  reindex it, and answer from the index that is then true: a miss is
  definitive only after this.

Both are bounded by the wait policy; the cancel token (Ctrl-C, a new keystroke)
returns the best partial results. Loaded only when a query waits: a hit on a
fresh index never imports it.
"""

from __future__ import annotations

import time

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout, git_dir
from rq_engine.core.query import parse
from rq_engine.core.wait import Wait
from rq_engine.index import fresh
from rq_engine.search.answer import Answer, Progress, left_ms, left_s, literal, tier_leaf
from rq_engine.search.pipeline import Searcher
from rq_engine.search.types import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rq_engine.index.asking import Asking, NoGit
    from rq_engine.index.stats import IndexProgress
    from rq_engine.search.service import QueryService

# A search watching another process warm re-reads every POLL_INTERVAL: coarse
# enough not to steal CPU or lock churn from the writer, fine enough that an
# early answer or a completed sweep shows within a frame (seed).
POLL_INTERVAL = 0.100
# Below this wait budget a warming query forks no git for its active files: a few
# milliseconds can afford neither git's answer nor the parse it would order.
GIT_MIN_MS = 1000


class BlockingAnswer:
    """One query's answer, blocking on indexing as `wait` allows. Reads and answers
    through its QueryService (`validated`, `answer_of`, `hand_off`); `early` says the
    pass was cancelled because the answer was in (the leaf tier held it)."""

    def __init__(
        self,
        svc: QueryService,
        query: str,
        limit: int,
        wait: Wait,
        tok: CancelToken,
        progress: Callable[[Progress], None] | None,
    ) -> None:
        self.svc = svc
        self.query = query
        self.limit = limit
        self.wait = wait
        self.tok = tok
        self.progress = progress
        self.early = False

    def caught_up(
        self, s: Searcher, hits: list[Hit], asking: Asking | NoGit | None = None
    ) -> Answer:
        """Ask git what moved since the index was settled (`asking`: the question
        started before the search), reindex it (blocking as the wait policy allows),
        and answer from the index that is then true: a miss is definitive only after
        this."""
        query, limit, wait, tok = self.query, self.limit, self.wait, self.tok
        rid = s.repo_id
        assert rid is not None
        gd = git_dir(s.root)
        if asking is None:
            from rq_engine.index.asking import Asking

            asking = Asking.start(self.svc.conn, s.root, gd)
        moved = asking.moved(self.svc.conn, rid)
        if not moved.moved:  # the answer found stands (and, empty, is definitive)
            fresh.settle(
                self.svc.conn,
                s.root,
                gd,
                rid,
                moved.stamp,
                moved.held,
                reindexed=False,
                dirs=moved.dirs,
            )
            if self.svc.data_version() != self.svc.searched_version:
                # Nothing moved *now*, because another process reindexed what moved
                # after this query searched: its answer predates that, so search again
                # (two queries right after one edit; a miss must stay a promise).
                s, hits, _ = self.svc.validated(query, limit)
            return self.svc.answer_of(s, hits)
        co = self.svc.checkout_of(s)
        if wait.none:
            self.svc.hand_off(co)
            a = self.svc.answer_of(s, hits)
            if not hits:
                a.outcome, a.note = "warming", f"{s.root} changed since it was indexed"
            return a
        from rq_engine.index.indexer import COLD_MIN_FILES
        from rq_engine.index.warm import catch_up

        t0 = time.monotonic()
        q = parse(query)
        # a checkout, a pull: block until answered, as on a warming index; a few named
        # files are reindexed whole
        bulk = moved.walk or len(moved.paths) >= COLD_MIN_FILES
        report = self._reporter(co, t0, tok if bulk else None)
        stats = catch_up(
            self.svc.conn,
            co,
            moved,
            budget_ms=wait.budget_ms,
            cancel=tok,
            leaf=tier_leaf(q),
            hint=q.leaf,
            progress=report,
        )
        finished = not stats.timed_out and not (stats.cancelled and not self.early)
        if finished and not self.early and (stats.complete or not moved.walk):
            dirs = stats.dirs if stats.dirs is not None else moved.dirs
            fresh.settle(
                self.svc.conn, s.root, gd, rid, moved.stamp, moved.held, reindexed=True, dirs=dirs
            )
        else:
            self.svc.hand_off(co)
        s, hits, _ = self.svc.validated(query, limit)
        a = self.svc.answer_of(s, hits, interrupted=stats.cancelled and not self.early)
        if not hits and not finished:
            a.outcome, a.note = "warming", f"{s.root} changed and is still being indexed"
        return a

    def warm(self, s: Searcher, co: Checkout) -> Answer:
        """Block until answered: index in-process (or beside a live warmer, taking over
        when it stops short), answer once every literal match of the leaf is committed
        or the sweep completes."""
        query, limit, wait, tok = self.query, self.limit, self.wait, self.tok
        self.svc.hand_off(co)
        if wait.none:
            hits: list[Hit] = []
            if s.repo_id is not None:
                s, hits, _ = self.svc.validated(query, limit)
            return self.svc.answer_of(s, hits)
        from rq_engine.index import gitstate, lock, owner, warm

        q = parse(query)
        t0 = time.monotonic()
        deadline = None if wait.budget_ms is None else t0 + wait.budget_ms / 1000
        me = owner.me()
        report = self._reporter(co, t0, tok)
        stamp = gitstate.stamp(co.git_dir)
        status = None
        active: list[str] = []
        if co.git_dir is not None and (wait.budget_ms is None or wait.budget_ms >= GIT_MIN_MS):
            # (a budget of a few ms cannot afford git's answer, nor use it)
            timeout = gitstate.GIT_TIMEOUT if deadline is None else left_s(deadline)
            status = gitstate.status(co.root, timeout=timeout)
            active = warm.active_files(co, status, timeout=left_s(deadline))
        held = fresh.held_keys(co.root, status)
        known = status is not None or co.git_dir is None  # what settle needs to be true
        common = {"active_files": active, "leaf": tier_leaf(q), "hint": q.leaf, "progress": report}
        own_tiers = False
        while True:
            if lock.claim(self.svc.conn, co.identity, me):
                try:
                    stats = warm.index_budgeted_cancellable(
                        self.svc.conn, co, left_ms(deadline), tok, **common
                    )
                finally:
                    lock.release(self.svc.conn, co.identity, me)
                if stats.complete and known:
                    fresh.settle(
                        self.svc.conn,
                        co.root,
                        co.git_dir,
                        stats.repository_id,
                        stamp,
                        held,
                        reindexed=True,
                        dirs=stats.dirs,
                    )
                break
            if not own_tiers:
                # A warmer is sweeping: parse only this query's tiers, then watch it.
                own_tiers = True
                warm.index_budgeted_cancellable(
                    self.svc.conn, co, left_ms(deadline), tok, tiers_only=True, **common
                )
                if self.early or tok.cancelled:
                    break
            if not self._watch(co, deadline, t0):
                break  # answered, complete, out of time or cancelled; else: take over
        s, hits, _ = self.svc.validated(query, limit)
        return self.svc.answer_of(s, hits, interrupted=tok.cancelled and not self.early)

    def _watch(self, co: Checkout, deadline: float | None, t0: float) -> bool:
        """Poll another process's sweep every POLL_INTERVAL until the answer appears,
        coverage completes, the deadline passes or the token is cancelled (False), or
        the warmer is gone with the sweep unfinished (True: the caller takes over)."""
        query, limit, tok, progress = self.query, self.limit, self.tok, self.progress
        from rq_engine.index import lock

        while not tok.wait(POLL_INTERVAL):
            s = self.svc.searcher()
            if s.state == "complete":
                return False
            if literal(self.svc.hits(s, query, limit)):
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            if lock.holder(self.svc.conn, co.identity) is None:
                return True  # its budget ran out (or it died): carry on here
            if progress is not None:
                _, done, seen = self.svc.coverage()
                progress(Progress(str(co.root), done, seen, time.monotonic() - t0, "warmer"))
        return False

    def _reporter(
        self, co: Checkout, t0: float, tok: CancelToken | None
    ) -> Callable[[IndexProgress], None]:
        """The pass's progress hook: tell the face, and once the leaf tier is committed,
        search; literal hits then are the whole literal answer, so the pass stops
        (through `tok`; without one the pass runs to its end)."""
        query, limit, progress = self.query, self.limit, self.progress
        self.early = False
        searched = False

        def on_progress(p: IndexProgress) -> None:
            nonlocal searched
            if progress is not None:
                progress(Progress(str(co.root), p.done, p.total, time.monotonic() - t0, "index"))
            if tok is None or p.phase != "parse" or p.leaf_pending or searched or tok.cancelled:
                return
            searched = True  # the leaf tier is whole: one search decides
            if literal(self.svc.hits(self.svc.searcher(), query, limit)):
                self.early = True
                tok.cancel()

        return on_progress
