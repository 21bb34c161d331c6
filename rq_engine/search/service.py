"""The query service: one answer to a query, with the seed's freshness and warming rules.

Every face calls this — `rq -q`, the picker, the MCP server — with a query, a
limit, a wait policy and a cancel token; what it does is the seed's "Indexing
model" and "Partial indexing":

- complete and fresh: search, revalidate the results by stat (validate.py), done;
  no fork of any kind within the recheck window (index/fresh.py, D16);
- complete, an exact hit outside the window: answer now; `finish` hands the
  "did anything move?" question to the detached warmer (search/handoff.py);
- complete, a miss — or, outside the window, an answer without the exact name,
  or one whose files moved more than revalidation can follow: ask git inline
  (search/asking.py; the answer depends on it: D33 keeps it ~10 ms); what moved
  is reindexed first (search/blocking.py), then the answer is definitive;
- never indexed (a git work tree) or warming: block until answered
  (search/blocking.py: index in-process, leaf tier first, or watch a live
  warmer). Bounded by the wait policy; the cancel token (Ctrl-C, a new
  keystroke) returns the best partial results;
- an untracked non-git directory: a bounded live scan (search/live.py);
- `--all-repos`: every indexed repository as it is (search/allrepos.py).

`finish`, after the face printed, counts the search (usage_daily, D13) and hands
leftover warming to the detached child. Imports on a hit: the pipeline, the
store and index/fresh (stdlib reads), and outside the window asking.py and
handoff.py; the indexer only when something is indexed.
"""

from __future__ import annotations

import os

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout, current_branch, git_dir
from rq_engine.core.sqlite import sqlite3
from rq_engine.core.wait import Wait
from rq_engine.index import fresh
from rq_engine.search import validate
from rq_engine.search.answer import (
    Answer,
    Progress,
)
from rq_engine.search.pipeline import Searcher
from rq_engine.search.types import Batch, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rq_engine.search.anchor import Anchor
    from rq_engine.search.blocking import BlockingAnswer
    from rq_engine.search.handoff import Where
    from rq_engine.search.live import LiveIndex


class QueryService:
    """Answers queries from a working directory (its repository, or all with `all_repos`).

    Holds one index connection; a face keeps one service per directory (the picker
    for its lifetime, `rq -q` for one answer). Not thread-safe: callers serialise.
    """

    def __init__(
        self,
        cwd: str | os.PathLike[str],
        *,
        all_repos: bool = False,
        db_path: str | os.PathLike[str] | None = None,
        source: str = "cli",
        conn: sqlite3.Connection | None = None,
        anchor: Anchor | None = None,
    ) -> None:
        self.cwd = os.path.abspath(cwd)  # a str: pathlib stays off the hot path
        self.all_repos = all_repos
        self.anchor = anchor  # where queries are asked from (--anchor; an editor's cursor)
        self.db_path = db_path
        self.source = source
        self._conn = conn
        self._handoff: Checkout | Where | None = None
        self._last: Answer | None = None
        self._scan: LiveIndex | None = None  # a kept live scan (the picker, untracked dir)
        # `PRAGMA data_version` when `validated` last searched: another process's commit
        # after it (a reindex of what this query missed) changes it
        self.searched_version = 0

    # ------------------------------------------------------------------ plumbing

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            from rq_engine.store.db import connect

            self._conn = connect(self.db_path)
        return self._conn

    def searcher(self) -> Searcher:
        """A Searcher reading the current coverage (cheap: a few indexed SELECTs)."""
        return Searcher(self.conn, self.cwd, all_repos=self.all_repos, anchor=self.anchor)

    def hits(self, s: Searcher, query: str, limit: int) -> list[Hit]:
        """`s`'s final answer to `query` (no revalidation)."""
        final: Batch | None = None
        for batch in s.search(query, limit=limit):
            final = batch
        return final.hits if final is not None else []

    def validated(self, query: str, limit: int) -> tuple[Searcher, list[Hit], bool]:
        """Search until the files behind the results are current (validate.until_current:
        each round reindexes what moved); the flag says the work tree moved more than
        the results show, so what else moved must be asked."""
        self.searched_version = self.data_version()

        def search() -> tuple[Searcher, list[Hit]]:
            s = self.searcher()
            return s, self.hits(s, query, limit)

        return validate.until_current(self.conn, search)

    def checkout_of(self, s: Searcher) -> Checkout:
        """The current repository's checkout, from what the index knows (no config read)."""
        from pathlib import Path  # (only a warm or a hand-off needs a Checkout)

        gd = git_dir(s.root)
        return Checkout(
            Path(s.root),
            s.repository or f"local:{s.root}",
            current_branch(gd),
            Path(gd) if gd is not None else None,
        )

    def answer_of(self, s: Searcher, hits: list[Hit], *, interrupted: bool = False) -> Answer:
        """The Answer `hits` make from `s`: hit, miss (or unread), or warming, with its note."""
        state = s.state
        if hits:
            outcome = "hit"
        else:
            outcome = "miss" if state == "complete" else "warming"
        note = ""
        not_read: tuple[tuple[str, int], ...] = ()
        if outcome == "warming":
            note = (
                f"the index of {s.root} is {'not built' if state == 'never' else 'still warming'}"
            )
        elif outcome == "miss" and s.repo_id is not None and not interrupted:
            # decided as every face that ends in a miss decides it: a miss never claims
            # absence in a language rq does not read, and a repository with no file rq
            # reads is `unread`, not `miss` (store/readable.py: read on a miss only)
            from rq_engine.store.readable import miss_verdict

            v = miss_verdict(self.conn, s.repo_id)
            outcome, note, not_read = v.outcome, v.note, v.not_read
        a = Answer(hits, outcome, state, s.root, s.repository, interrupted, note, not_read)
        a.boost_note = s.boost_note()
        self._last = a
        return a

    def _blocking(
        self,
        query: str,
        limit: int,
        wait: Wait,
        tok: CancelToken,
        progress: Callable[[Progress], None] | None,
    ) -> BlockingAnswer:
        # (search/blocking.py loads only when a query waits: never on a hit)
        from rq_engine.search.blocking import BlockingAnswer

        return BlockingAnswer(self, query, limit, wait, tok, progress)

    def hand_off(self, co: Checkout | None) -> None:
        """Leave `co` to the detached warmer once the face has shown the answer (finish);
        None leaves nothing (an earlier answer's hand-off is dropped)."""
        self._handoff = co

    # ------------------------------------------------------------------ answers

    def answer(
        self,
        query: str,
        *,
        limit: int,
        wait: Wait,
        cancel: CancelToken | None = None,
        progress: Callable[[Progress], None] | None = None,
    ) -> Answer:
        """The answer to `query`, blocking on warming as `wait` allows."""
        tok = cancel or CancelToken()
        s = self.searcher()
        if s.repo_id is None and not self.all_repos:
            from rq_engine.core.identity import checkout_for

            co = checkout_for(self.cwd)
            if co.git_dir is None:  # an untracked plain directory: scanned live, bounded
                from rq_engine.search import live

                a = live.answer(self.cwd, query, limit=limit, budget_ms=wait.budget_ms, cancel=tok)
                self._last = a
                return a
            return self._blocking(query, limit, wait, tok, progress).warm(s, co)
        if s.state != "complete" and not self.all_repos:
            blocking = self._blocking(query, limit, wait, tok, progress)
            return blocking.warm(s, self.checkout_of(s))
        if self.all_repos:
            # (search/allrepos.py loads only for --all-repos: never on a query in one repository)
            from rq_engine.search.allrepos import answer_all

            self._last = a = answer_all(self, query, limit, wait, tok, progress)
            return a
        is_fresh = fresh.fresh(self.conn, s.root, git_dir(s.root))
        early = None
        if not is_fresh:
            # (search/asking.py loads outside the window only: a fresh hit forks and loads nothing)
            from rq_engine.search.asking import ask_early

            early = ask_early(self.conn, s, query)
        try:
            s, hits, wider = self.validated(query, limit)
            if hits and not wider and (is_fresh or any(h.layer == "exact" for h in hits)):
                if not is_fresh:
                    # "did anything else move?" after the answer, asked by a detached child
                    # (a place, not a Checkout: building one imports pathlib)
                    from rq_engine.search.handoff import Where

                    gd = git_dir(s.root)
                    self._handoff = Where(s.root, s.repository or f"local:{s.root}", gd)
                return self.answer_of(s, hits)
            # A miss, or an answer without the exact name outside the recheck window, or
            # results that moved under it: only git can say whether the answer is absent
            # (a definition added since the index was settled would be missing).
            # (git first: it starts before blocking.py is even loaded)
            from rq_engine.search.asking import ask_now

            early = early or ask_now(self.conn, s.root)
            blocking = self._blocking(query, limit, wait, tok, progress)
            asking, early = early, None
            return blocking.caught_up(s, hits, asking)
        finally:
            if early is not None:  # (a definition of the name came in with a revalidation)
                early.abandon()

    # ------------------------------------------------------------------ streaming

    def stream(self, query: str, *, limit: int, cancel: CancelToken) -> Iterator[Batch]:
        """The picker's per-keystroke search: batches as the layers produce them, from the
        index as it is (no warming here: `warm_in_background` does that); the final
        batch is revalidated (its stale files reindexed in-process) before it is yielded."""
        if self._scan is not None:
            res = self._scan.search(query, limit=limit, cancel=cancel)
            if not cancel.cancelled:
                yield Batch(res.hits, "live", True, "never")
            return
        s = self.searcher()
        final: Batch | None = None
        for batch in s.search(query, limit=limit, cancel=cancel):
            if batch.final:
                final = batch
            else:
                yield batch
        if final is None or cancel.cancelled:
            return
        if validate.stale(self.conn, final.hits):
            s, hits, _ = self.validated(query, limit)
            final = Batch(hits, final.layer, True, s.state, final.elapsed_ms, final.notes)
        yield final

    def scan_live(self, workers: int | None = None) -> LiveIndex | None:
        """For a face that stays open in an untracked plain directory (the picker): scan
        it once, bounded, and answer every later `stream` from that scan. None (and no
        scan) when the directory is a git work tree or indexed."""
        if self._scan is not None:
            return self._scan
        s = self.searcher()
        if s.repo_id is not None or self.all_repos:
            return None
        from rq_engine.core.identity import git_root

        if git_root(self.cwd) is not None:
            return None
        from pathlib import Path

        from rq_engine.search.live import LiveIndex

        self._scan = LiveIndex.build(Path(self.cwd), workers=workers)
        return self._scan

    def describe(self) -> tuple[str | None, str, str]:
        """(repository identity, coverage state, checkout root) of the working directory."""
        s = self.searcher()
        return s.repository, s.state, s.root

    def coverage(self) -> tuple[str, int, int]:
        """(state, files indexed, files seen) of the working directory's repository."""
        s = self.searcher()
        if s.repo_id is None:
            return s.state, 0, 0
        row = self.conn.execute(
            "SELECT coalesce(files_indexed, 0), coalesce(files_seen, 0) FROM coverage"
            " WHERE repository_id = ? AND scope = 'full'",
            (s.repo_id,),
        ).fetchone()
        return (s.state, int(row[0]), int(row[1])) if row else (s.state, 0, 0)

    def index_mark(self) -> tuple[object, ...]:
        """What moves when symbols are written or coverage changes: the newest symbol id
        (rowid max, O(1)) and the coverage state."""
        top = self.conn.execute("SELECT max(id) FROM symbols").fetchone()[0]
        return (top, self.coverage()[0])

    def data_version(self) -> int:
        """Changes whenever another connection commits (a warmer's batch): re-query then."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def needs_warming(self, *, ahead_ms: int = 0) -> Checkout | None:
        """The checkout a face should start the warmer for: never indexed (a git work
        tree), warming, or complete but outside its verdict (or, with `ahead_ms`, within
        that much of its end: a face that stays open renews it ahead). None when fresh."""
        s = self.searcher()
        if s.repo_id is None:
            from rq_engine.core.identity import checkout_for

            co = checkout_for(self.cwd)
            return co if co.git_dir is not None else None
        gd = git_dir(s.root)
        if s.state != "complete" or not fresh.fresh(self.conn, s.root, gd, ahead_ms=ahead_ms):
            return self.checkout_of(s)
        return None

    # ------------------------------------------------------------------ after

    def finish(self, answer: Answer | None = None, *, flags: str = "") -> None:
        """After the face showed the answer: count it, then hand leftover warming to the
        detached warmer. Never raises for either (the answer is already out)."""
        a = answer or self._last
        if a is not None:
            from rq_engine.store import usage

            usage.record(
                self.conn,
                source=self.source,
                flags=flags,
                # nothing readable is a miss against a ready index, for the counters
                outcome="miss" if a.outcome == "unread" else a.outcome,
                on_complete=a.state == "complete",
            )
        left, self._handoff = self._handoff, None
        if left is not None:
            # (search/handoff.py loads only when warming is left over: never on a fresh hit)
            from rq_engine.search.handoff import leave

            leave(self.conn, left, lambda: self.checkout_of(self.searcher()))

    def close(self) -> None:
        if self._scan is not None:
            self._scan.close()
            self._scan = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None


__all__ = ["Answer", "Progress", "QueryService", "Wait"]
