"""One indexing pass, step by step: what `run_index` (index/indexer.py) runs.

The steps, in order, each a method of `Pass`: `begin` (the repository's rows, the
walk started), `collect` (walk, then one stat per candidate against one SELECT of
the index), `order` (active files, the query's leaf tier, names like the query,
the rest), `clear` (the files gone, coverage set to warming), `parse_and_write`
(forked parsers, one transaction per batch) and `finish` (coverage and counts).
`run_index` stays the one core every caller goes through; this module only gives
its body names. Never imports tree-sitter at module level, nor a face.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout
from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import batch, crashpoints, dirrecord, fresh, fts, tiers
from rq_engine.index.parse import Job, Parsed, max_file_bytes
from rq_engine.index.pool import parse_all
from rq_engine.index.stats import IndexProgress, IndexStats
from rq_engine.lang import grammar, unread
from rq_engine.store import derived, writes

TYPE_CHECKING = False
if TYPE_CHECKING:
    # the walker imports subprocess (~4 ms): a pass given its files (a search
    # revalidating a result) never walks
    from rq_engine.index import walker
    from rq_engine.store.walsync import Flusher

# A warming search only sees committed rows, so results commit at least this often.
BATCH_SECONDS = 0.050
# …or after this many files, whichever comes first (bounds one transaction's size).
BATCH_FILES = 256
# On a cold pass, after the first batch, a batch holds up to a third of the files
# still to parse (at least COLD_TAIL_FILES, at most COLD_BATCH_FILES) and commits
# every COLD_BATCH_SECONDS while it is bigger than BATCH_FILES. Each commit
# writes every page its batch dirtied, and a repository's first rows land all
# over the name indexes: at 50 ms batches a Django cold pass wrote 90 MB (32k
# pwrite calls) for a 14 MB database, ~48 MB this way. The first batch still
# commits within 50 ms, so a search waiting on a fresh repository gets answers
# soon; shrinking batches keep the last write small, since nothing overlaps it
# (a 700-file final batch was ~150 ms of a 1.7 s pass; now ~30 ms).
COLD_BATCH_SECONDS = 0.4
COLD_BATCH_FILES = 4096
COLD_TAIL_FILES = 128
# A pass with at least this many files to parse (a first index, or a pull, a
# checkout, a rebase) takes the bulk path: the per-row FTS and names-queue
# triggers are suspended and the pass writes those tables itself (index/fts.py,
# store.derived.ColdNames). Below it, the schema churn isn't worth the ~ms saved.
COLD_MIN_FILES = 200


class Request(Record):
    """What a caller of run_index asked for (its parameters, as they are)."""

    active_files: tuple[str, ...]
    subtrees: tuple[str, ...]
    files: tuple[str, ...] | None
    leaf: str | None
    hint: str | None
    tiers_only: bool
    deadline: float | None
    cancel: CancelToken | None
    progress: Callable[[IndexProgress], None] | None
    workers: int | None
    batch_files: int
    walk: walker.PendingWalk | None = None


def run(
    conn: sqlite3.Connection, checkout: Checkout, req: Request, stats: IndexStats
) -> IndexStats:
    """The pass: its steps in order (see the module's docstring)."""
    p = Pass(conn, checkout, req, stats)
    pending_walk = p.begin()
    jobs, doomed = p.collect(pending_walk)
    jobs = p.order(jobs)
    worked = p.clear(jobs, doomed)
    stopped = p.parse_and_write(jobs)
    return p.finish(len(jobs), worked, stopped)


class Pass:
    """The state one pass carries between its steps."""

    def __init__(
        self, conn: sqlite3.Connection, checkout: Checkout, req: Request, stats: IndexStats
    ) -> None:
        self.conn, self.checkout, self.req, self.stats = conn, checkout, req, stats
        self.t0 = time.monotonic()
        self.root = str(checkout.root)
        # A restricted pass touches only some files: it can neither complete coverage
        # nor take deletions from what it did not list.
        self.targeted = req.files is not None or req.tiers_only
        self.leaf_pending: set[str] = set()
        self.repo_id = 0
        self.checkout_id = 0
        self.was = "never"  # the coverage state the pass found
        self.start_status = "warming"  # …and the one it sets while it runs

    def tick(self, phase: str, done: int, total: int) -> None:
        if self.req.progress is not None:
            self.req.progress(
                IndexProgress(
                    phase,
                    done,
                    total,
                    self.stats.files_seen,
                    self.stats.symbols,
                    time.monotonic() - self.t0,
                    len(self.leaf_pending),
                )
            )

    def begin(self) -> walker.PendingWalk | None:
        """Start the walk, then (git scanning meanwhile) the repository's and checkout's
        rows; returns the walk (None: the caller gave the files)."""
        conn, req = self.conn, self.req
        pending_walk = None
        if req.files is None:
            from rq_engine.index import walker

            pending_walk = req.walk or walker.start(
                self.checkout.root, git=self.checkout.git_dir is not None, subtrees=req.subtrees
            )
        fts.repair(conn)
        derived.drain(conn)  # names a writer killed before its drain left queued (~free when none)
        with writes.transaction(conn):
            self.repo_id = writes.upsert_repository(conn, self.checkout.identity)
            self.checkout_id = writes.upsert_checkout(
                conn, self.repo_id, self.root, self.checkout.branch
            )
            fresh.forget(conn, writes.prune_checkouts(conn, self.repo_id))
        self.stats.repository_id = self.repo_id
        self.was = writes.coverage_status(conn, self.repo_id)
        return pending_walk

    def collect(self, pending_walk: walker.PendingWalk | None) -> tuple[list[Job], list[int]]:
        """The files to parse (new or changed) and the file ids to delete."""
        conn, req, stats, root = self.conn, self.req, self.stats, self.root
        self.tick("walk", 0, 0)
        given = None if req.files is None else list(dict.fromkeys(batch.rel(p) for p in req.files))
        states = writes.file_states(conn, self.repo_id, given)
        if not states:
            # A first index parses everything: import the parser while git runs. A
            # broken install is reported per language by the pool, not here.
            try:
                grammar.preload()
            except Exception:
                pass
        if pending_walk is not None:
            w = pending_walk.result()
            stats.walked_via = w.via
            if w.note:
                stats.errors.append(w.note)
            paths = w.paths
            if w.via == "git" and not req.subtrees and not req.tiers_only:
                rules = dirrecord.rule_files(paths, self.checkout.git_dir)
                stats.dirs = dirrecord.dir_keys(
                    root, dirrecord.dirs_of(paths), w.started_ns, files=rules
                )
        else:
            paths = given or []
            stats.walked_via = "given"
        jobs, doomed, listed = batch.collect(paths, root, states, stats, given=pending_walk is None)
        if not self.targeted:
            prefixes = [s.strip("/") + "/" for s in req.subtrees if s.strip("/") not in ("", ".")]
            for path, old in states.items():
                if path not in listed and (
                    not prefixes or any(path.startswith(p) for p in prefixes)
                ):
                    doomed.append(old.id)
        crashpoints.phase("walked")
        return jobs, doomed

    def order(self, jobs: list[Job]) -> list[Job]:
        """Active files, the query's leaf tier, names like the query, the rest (only
        the first two for a tiers-only pass)."""
        req = self.req
        if not (req.active_files or req.leaf or req.hint):
            return jobs

        def stop() -> bool:  # Ctrl-C or the budget, while the leaf tier is being read
            cancelled = req.cancel is not None and req.cancel.cancelled
            return cancelled or (req.deadline is not None and time.monotonic() >= req.deadline)

        order, leaf_tier, whole = tiers.order(
            [j.path for j in jobs],
            self.root,
            active=req.active_files,
            leaf=req.leaf,
            hint=req.hint,
            cap=max_file_bytes(),
            stop=stop,
        )
        by_path = {j.path: j for j in jobs}
        jobs = [by_path[p] for p in order]
        if req.tiers_only:
            active = {batch.rel(a) for a in req.active_files}
            jobs = [j for j in jobs if j.path in leaf_tier or j.path in active]
        self.leaf_pending = {j.path for j in jobs if j.path in leaf_tier}
        if not whole:
            self.leaf_pending.add("\0")  # (no file is named so: the tier never reads as whole)
        return jobs

    def clear(self, jobs: list[Job], doomed: list[int]) -> bool:
        """Delete the files gone and set the running coverage state; True when the pass
        has work (files to parse or to delete)."""
        conn, repo_id = self.conn, self.repo_id
        worked = bool(jobs or doomed)
        was = self.was
        self.start_status = was if self.targeted and was != "never" else "warming"
        if worked or self.start_status != was:
            with writes.transaction(conn):
                batch.still_there(conn, repo_id)  # (dropped since this pass began?)
                gone = set(doomed)
                fts.forget(conn, gone)  # (only when someone's bulk pass has the triggers off)
                self.stats.files_deleted = len(gone)
                writes.delete_files(conn, gone)
                writes.set_coverage(conn, repo_id, self.start_status)
                if worked:
                    # The rows now follow this checkout's tree: another checkout of the
                    # same repository (a worktree, a second clone) can no longer trust
                    # what it recorded of them, so its next check walks and compares
                    # every file.
                    others = [r for r in writes.checkout_roots(conn, repo_id) if r != self.root]
                    fresh.forget(conn, others)
            derived.after_batch(conn, repo_id)
        return worked

    def parse_and_write(self, jobs: list[Job]) -> bool:
        """Parse and write, one transaction per batch; True when stopped (cancelled or
        out of time) before the last. Many files to parse (a first index, a pull, a
        checkout) take the bulk path: per-row triggers suspended."""
        conn, req, stats, repo_id = self.conn, self.req, self.stats, self.repo_id
        suspension = fts.suspend(conn) if len(jobs) >= COLD_MIN_FILES else None
        stats.cold = suspension is not None
        cold = derived.ColdNames(repo_id) if suspension is not None else None
        # (the log synced behind each batch, so the pass's final checkpoint is not
        # left to sync all of it: store/walsync.py)
        flusher: Flusher | None = None
        if suspension is not None:  # (threading: not for a search revalidating a file)
            from rq_engine.store.walsync import Flusher

            flusher = Flusher(conn)
        stopped = False
        results = parse_all(
            self.root,
            jobs,
            max_file_bytes(),
            req.workers,
            stop_poll=BATCH_SECONDS,
            keys=cold is not None,
        )
        try:
            self.tick("parse", 0, len(jobs))
            pending: list[Parsed] = []
            first_at = 0.0
            done = 0
            every, most = BATCH_SECONDS, req.batch_files
            for res in results:
                if res is not None:
                    if not pending:
                        first_at = time.monotonic()
                    pending.append(res)
                    done += 1
                now = time.monotonic()
                if pending and (len(pending) >= most or now - first_at >= every):
                    batch.write_batch(conn, repo_id, pending, stats, suspension, cold)
                    if flusher is not None:
                        flusher.kick()
                    self.leaf_pending.difference_update(r.path for r in pending)
                    pending = []
                    self.tick("parse", done, len(jobs))
                    # (a caller that asked for smaller batches, or a search still waiting
                    # on its leaf tier, keeps 50 ms commits)
                    if (
                        cold is not None
                        and req.batch_files >= BATCH_FILES
                        and not self.leaf_pending
                    ):
                        every, most = _cold_batch(done, len(jobs), req.batch_files)
                if req.cancel is not None and req.cancel.cancelled:
                    stats.cancelled = stopped = True
                elif req.deadline is not None and now >= req.deadline:
                    stats.timed_out = stopped = True
                if stopped:
                    break
            if pending:
                batch.write_batch(conn, repo_id, pending, stats, suspension, cold)
                self.leaf_pending.difference_update(r.path for r in pending)
                self.tick("parse", done, len(jobs))
        finally:
            results.close()  # terminates the pool now, not at garbage collection
            if flusher is not None:
                flusher.close()
            if suspension is not None:
                fts.resume(conn, suspension)
        return stopped

    def finish(self, n_jobs: int, worked: bool, stopped: bool) -> IndexStats:
        """Coverage (complete only after an unrestricted pass ran to its end) and counts."""
        conn, stats, repo_id, was = self.conn, self.stats, self.repo_id, self.was
        self.tick("finish", n_jobs, n_jobs)
        full_sweep = not self.req.subtrees and not self.targeted and not stopped
        stats.files_total = writes.count_files(conn, repo_id)
        if full_sweep:
            status = "complete"
        elif self.targeted:
            status = self.start_status
        else:
            status = "warming"
            if was == "complete" and not worked:
                status = "complete"  # nothing changed under a complete index: still complete
        partial = bool(self.req.subtrees) or self.targeted
        if worked or status != was or not partial:
            # (a targeted pass that changed nothing writes nothing: a search's
            # revalidation must not wake every picker watching the index)
            with writes.transaction(conn):
                batch.still_there(conn, repo_id)
                writes.set_coverage(
                    conn,
                    repo_id,
                    status,
                    files_seen=stats.files_seen if not partial else None,
                    files_indexed=stats.files_total,
                    files_skipped=stats.files_skipped if not partial else None,
                    files_failed=stats.files_failed if not partial else None,
                    files_unread=unread.encode(stats.files_unread) if not partial else None,
                )
                writes.mark_checkout_indexed(conn, self.checkout_id)
        crashpoints.phase("finished")
        stats.complete = status == "complete"
        if (
            not self.targeted
        ):  # (a covering-index scan: ~5 ms per 100k rows, not for a revalidation)
            stats.symbols_total = writes.count_symbols(conn, repo_id)
        stats.seconds = time.monotonic() - self.t0
        return stats


def _cold_batch(done: int, total: int, base: int) -> tuple[float, int]:
    """The next batch's bounds on a cold pass (seconds, files): see COLD_BATCH_SECONDS."""
    most = max(COLD_TAIL_FILES, min(COLD_BATCH_FILES, (total - done) // 3))
    return (COLD_BATCH_SECONDS if most > base else BATCH_SECONDS), most
