"""The incremental indexer: one core (`run_index`), two entry points, batched writes.

`run_index` is the seed's single core: collect candidates serially (walk + stat),
parse the changed/new ones (forked workers, or in-process for a handful), write
each batch of results in one transaction. Its parameters are what differ
between callers: explicit `rq --index` (`index_under`, unbounded, optional
subtrees), the time-boxed and cancellable warms of index/warm.py (`deadline`,
`cancel`, a searching query's `leaf` tier first), the detached warmer, and a
search revalidating its results (`files`).

Must not import tree-sitter at module level (plugins load in parse.py, lazily),
and never imports a face.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout, checkout_for
from rq_engine.core.value import value
from rq_engine.index import batch, crashpoints, dirrecord, fresh, fts, tiers
from rq_engine.index.parse import Parsed, max_file_bytes
from rq_engine.index.pool import parse_all
from rq_engine.index.stats import IndexProgress, IndexStats
from rq_engine.lang import grammar, unread
from rq_engine.store import derived, writes
from rq_engine.store.txn import writable

TYPE_CHECKING = False
if TYPE_CHECKING:
    # the walker imports subprocess (~4 ms): a pass given its files (a search
    # revalidating a result) never walks
    from rq_engine.index import walker

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
# The writer's page cache during a pass (KiB; SQLite's default is 2 MiB). Batches
# insert into three symbol indexes at random places; with 2 MiB the pages spill
# and are re-read every batch. 64 MiB cut a Go-stdlib cold pass's write CPU from
# 4.0 s to 2.5 s (most of it system time). Memory is only taken as pages are used.
WRITER_CACHE_KIB = 64 * 1024
# The writer's busy timeout during a pass (ms; connect() sets 5 s). SQLite's busy
# handler is not fair: with three `rq --index` on a loaded 2-core machine one was
# starved past 5 s though no transaction lasted 1 s. A pass is background work: it
# waits for the lock rather than fails (this covers the derived hook's
# transactions too, which run on this connection).
WRITER_BUSY_MS = 120_000


def repository_id_for(conn: sqlite3.Connection, checkout: Checkout) -> int | None:
    """The repositories row of a checkout's logical project, or None if never indexed."""
    return writes.repository_id(conn, checkout.identity)


def drop_repository(conn: sqlite3.Connection, root: Path) -> writes.Dropped | None:
    """Forget the repository of the checkout holding `root` (all its checkouts, files,
    symbols, coverage). None when it was never indexed."""
    co = checkout_for(root)
    row = conn.execute(
        "SELECT repository_id FROM checkouts WHERE root_path = ?", (str(co.root),)
    ).fetchone()
    rid = int(row[0]) if row else writes.repository_id(conn, co.identity)
    if rid is None:
        return None
    with _writer_settings(conn):
        fts.repair(conn)
        with writes.transaction(conn):
            fts.note_write(conn, None)
            fresh.forget(conn, writes.checkout_roots(conn, rid))
            dropped = writes.delete_repository(conn, rid)
        derived.after_batch(conn, rid)
    _drop_text_cache(conn, rid)
    return dropped


def _drop_text_cache(conn: sqlite3.Connection, rid: int) -> None:
    """The dropped repository's text-ranker generations go with it (they could never
    be served again: a new repository row gets a new sequence)."""
    import shutil

    from rq_engine.store.paths import text_cache_dir

    row = conn.execute("SELECT value FROM meta WHERE key = 'store_uuid'").fetchone()
    if row is not None:
        shutil.rmtree(text_cache_dir(str(row[0]), rid), ignore_errors=True)


def index_under(
    conn: sqlite3.Connection,
    root: Path,
    *,
    progress: Callable[[IndexProgress], None] | None = None,
    workers: int | None = None,
    checkout: Checkout | None = None,
    walk: walker.PendingWalk | None = None,
) -> IndexStats:
    """Index the checkout holding `root`, unbounded (explicit `rq --index`). A caller
    that already resolved the checkout and started its walk passes both."""
    co = checkout or checkout_for(root)
    return run_index(conn, co, progress=progress, workers=workers, walk=walk)


def run_index(
    conn: sqlite3.Connection,
    checkout: Checkout,
    *,
    active_files: Sequence[str] = (),
    subtrees: Sequence[str] = (),
    files: Sequence[str] | None = None,
    leaf: str | None = None,
    hint: str | None = None,
    tiers_only: bool = False,
    deadline: float | None = None,
    cancel: CancelToken | None = None,
    progress: Callable[[IndexProgress], None] | None = None,
    workers: int | None = None,
    batch_files: int = BATCH_FILES,
    walk: walker.PendingWalk | None = None,
) -> IndexStats:
    """One indexing pass over `checkout`.

    What differs between callers is only these parameters:
    - `active_files` (repo-relative) are parsed first; then, with `leaf`, every
      file whose text holds the query's leaf (index/tiers.py), `progress`
      reporting how many of those are still to commit (`leaf_pending`); then
      the rest in walk order, file names resembling `hint` first.
    - `subtrees` limit the walk and leave coverage 'warming' (a seed, not a fence).
    - `files` replaces the walk with these paths (a search revalidating its
      results, a warm reindexing what git says moved); `tiers_only` parses only
      the active and leaf tiers (a search beside a running warmer). Neither
      changes the coverage state, but a never-indexed repository becomes warming.
    - `deadline` (a `time.monotonic()` instant) and `cancel` stop the pass; every
      batch committed so far stays.

    Coverage becomes 'complete' only when an unrestricted pass finishes. `walk`
    is this pass's walk if the caller started it (walker.start with the same
    subtrees) so git could scan while it was importing and opening the store.

    A pass whose repository another process drops (`rq --drop`) stops at its next
    batch with `dropped` set, writing nothing more. On a read-only store (store.db
    opens one for queries) nothing can be written: the pass stops before it starts,
    as at a deadline of now, and its callers answer from the index as it is.
    """
    stats = IndexStats(identity=checkout.identity, root=str(checkout.root))
    if not writable(conn):
        stats.timed_out = True
        return stats
    req = _Request(
        tuple(active_files),
        tuple(subtrees),
        None if files is None else tuple(files),
        leaf,
        hint,
        tiers_only,
        deadline,
        cancel,
        progress,
        workers,
        batch_files,
        walk,
    )
    t0 = time.monotonic()
    with _writer_settings(conn):
        try:
            return _run(conn, checkout, req, stats)
        except batch.RepositoryGone:
            stats.dropped, stats.complete = True, False
            stats.seconds = time.monotonic() - t0
            return stats


@contextmanager
def _writer_settings(conn: sqlite3.Connection) -> Iterator[None]:
    """A bigger page cache and a patient busy timeout for the pass, restored after."""
    cache = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    busy = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
    conn.execute(f"PRAGMA busy_timeout = {WRITER_BUSY_MS}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {cache}")
        conn.execute(f"PRAGMA busy_timeout = {busy}")


@value
class _Request:
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


def _run(
    conn: sqlite3.Connection, checkout: Checkout, req: _Request, stats: IndexStats
) -> IndexStats:
    t0 = time.monotonic()
    subtrees, progress = req.subtrees, req.progress
    root = str(checkout.root)
    # A restricted pass touches only some files: it can neither complete coverage
    # nor take deletions from what it did not list.
    targeted = req.files is not None or req.tiers_only
    leaf_pending: set[str] = set()

    def tick(phase: str, done: int, total: int) -> None:
        if progress is not None:
            progress(
                IndexProgress(
                    phase,
                    done,
                    total,
                    stats.files_seen,
                    stats.symbols,
                    time.monotonic() - t0,
                    len(leaf_pending),
                )
            )

    # git scans the tree while the transactions below run (index/walker.py)
    pending_walk = None
    if req.files is None:
        from rq_engine.index import walker

        pending_walk = req.walk or walker.start(
            checkout.root, git=checkout.git_dir is not None, subtrees=subtrees
        )
    fts.repair(conn)
    derived.drain(conn)  # names a writer killed before its drain left queued (~free when none)
    with writes.transaction(conn):
        repo_id = writes.upsert_repository(conn, checkout.identity)
        checkout_id = writes.upsert_checkout(conn, repo_id, root, checkout.branch)
        fresh.forget(conn, writes.prune_checkouts(conn, repo_id))
    stats.repository_id = repo_id
    was = writes.coverage_status(conn, repo_id)
    was_complete = was == "complete"

    # --- collect: walk, then one stat per candidate against one SELECT of the index
    tick("walk", 0, 0)
    given = None if req.files is None else list(dict.fromkeys(batch.rel(p) for p in req.files))
    states = writes.file_states(conn, repo_id, given)
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
        if w.via == "git" and not subtrees and not req.tiers_only:
            stats.dirs = dirrecord.dir_keys(root, dirrecord.dirs_of(paths), w.started_ns)
    else:
        paths = given or []
        stats.walked_via = "given"
    jobs, doomed, listed = batch.collect(paths, root, states, stats)
    if not targeted:
        prefixes = [s.strip("/") + "/" for s in subtrees if s.strip("/") not in ("", ".")]
        for path, old in states.items():
            if path not in listed and (not prefixes or any(path.startswith(p) for p in prefixes)):
                doomed.append(old.id)
    crashpoints.phase("walked")

    # --- order: active files, the query's leaf tier, names like the query, the rest
    if req.active_files or req.leaf or req.hint:

        def stop() -> bool:  # Ctrl-C or the budget, while the leaf tier is being read
            cancelled = req.cancel is not None and req.cancel.cancelled
            return cancelled or (req.deadline is not None and time.monotonic() >= req.deadline)

        order, leaf_tier, whole = tiers.order(
            [j.path for j in jobs],
            root,
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
        leaf_pending = {j.path for j in jobs if j.path in leaf_tier}
        if not whole:
            leaf_pending.add("\0")  # (no file is named so: the tier never reads as whole)

    worked = bool(jobs or doomed)
    start_status = was if targeted and was != "never" else "warming"
    if worked or start_status != was:
        with writes.transaction(conn):
            batch.still_there(conn, repo_id)  # (dropped since this pass began?)
            gone = set(doomed)
            fts.forget(conn, gone)  # (only when someone's bulk pass has the triggers off)
            stats.files_deleted = len(gone)
            writes.delete_files(conn, gone)
            writes.set_coverage(conn, repo_id, start_status)
            if worked:
                # The rows now follow this checkout's tree: another checkout of the same
                # repository (a worktree, a second clone) can no longer trust what it
                # recorded of them, so its next check walks and compares every file.
                fresh.forget(conn, [r for r in writes.checkout_roots(conn, repo_id) if r != root])
        derived.after_batch(conn, repo_id)

    # --- parse and write, one transaction per batch. Many files to parse (a first
    # index, a pull, a checkout) take the bulk path: per-row triggers suspended.
    suspension = fts.suspend(conn) if len(jobs) >= COLD_MIN_FILES else None
    stats.cold = suspension is not None
    cold = derived.ColdNames(repo_id) if suspension is not None else None
    stopped = False
    results = parse_all(
        root, jobs, max_file_bytes(), req.workers, stop_poll=BATCH_SECONDS, keys=cold is not None
    )
    try:
        tick("parse", 0, len(jobs))
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
                leaf_pending.difference_update(r.path for r in pending)
                pending = []
                tick("parse", done, len(jobs))
                # (a caller that asked for smaller batches, or a search still waiting
                # on its leaf tier, keeps 50 ms commits)
                if cold is not None and req.batch_files >= BATCH_FILES and not leaf_pending:
                    every, most = _cold_batch(done, len(jobs), req.batch_files)
            if req.cancel is not None and req.cancel.cancelled:
                stats.cancelled = stopped = True
            elif req.deadline is not None and now >= req.deadline:
                stats.timed_out = stopped = True
            if stopped:
                break
        if pending:
            batch.write_batch(conn, repo_id, pending, stats, suspension, cold)
            leaf_pending.difference_update(r.path for r in pending)
            tick("parse", done, len(jobs))
    finally:
        results.close()  # terminates the pool now, not at garbage collection
        if suspension is not None:
            fts.resume(conn, suspension)

    # --- finish: coverage, counts
    tick("finish", len(jobs), len(jobs))
    full_sweep = not subtrees and not targeted and not stopped
    stats.files_total = writes.count_files(conn, repo_id)
    if full_sweep:
        status = "complete"
    elif targeted:
        status = start_status
    else:
        status = "warming"
        if was_complete and not worked:
            status = "complete"  # nothing changed under a complete index: still complete
    partial = bool(subtrees) or targeted
    if worked or status != was or not partial:
        # (a targeted pass that changed nothing writes nothing: a search's revalidation
        # must not wake every picker watching the index)
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
            writes.mark_checkout_indexed(conn, checkout_id)
    crashpoints.phase("finished")
    stats.complete = status == "complete"
    if not targeted:  # (a covering-index scan: ~5 ms per 100k rows, not for a revalidation)
        stats.symbols_total = writes.count_symbols(conn, repo_id)
    stats.seconds = time.monotonic() - t0
    return stats


def _cold_batch(done: int, total: int, base: int) -> tuple[float, int]:
    """The next batch's bounds on a cold pass (seconds, files): see COLD_BATCH_SECONDS."""
    most = max(COLD_TAIL_FILES, min(COLD_BATCH_FILES, (total - done) // 3))
    return (COLD_BATCH_SECONDS if most > base else BATCH_SECONDS), most


__all__ = ["IndexProgress", "IndexStats", "drop_repository", "index_under", "run_index"]
