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

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout, checkout_for
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import batch, fresh, fts, sweep
from rq_engine.index.stats import IndexProgress, IndexStats
from rq_engine.store import derived, writes
from rq_engine.store.txn import writable

TYPE_CHECKING = False
if TYPE_CHECKING:
    # the walker imports subprocess (~4 ms): a pass given its files (a search
    # revalidating a result) never walks
    from rq_engine.index import walker

# The pass's batching and bulk-path bounds live with its steps (index/sweep.py).
BATCH_FILES = sweep.BATCH_FILES
COLD_MIN_FILES = sweep.COLD_MIN_FILES
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
# The WAL size (pages) at which a pass's commit copies the log into the database
# (SQLite's default: 1000, 4 MiB). A batch rewrites the index pages every earlier
# batch dirtied; each checkpoint writes them to the database again and syncs twice.
# At 10,000 an LLVM cold pass made 11 fdatasync calls instead of 29 and 36k WAL
# writes instead of 41k; the log still stays under ~40 MiB.
WRITER_CHECKPOINT_PAGES = 10_000


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
    restore = _writer_settings(conn)
    try:
        fts.repair(conn)
        with writes.transaction(conn):
            fts.note_write(conn, None)
            fresh.forget(conn, writes.checkout_roots(conn, rid))
            dropped = writes.delete_repository(conn, rid)
        derived.after_batch(conn, rid)
    finally:
        restore()
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
    req = sweep.Request(
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
    restore = _writer_settings(conn)
    try:
        return sweep.run(conn, checkout, req, stats)
    except batch.RepositoryGone:
        stats.dropped, stats.complete = True, False
        stats.seconds = time.monotonic() - t0
        return stats
    finally:
        restore()


def _writer_settings(conn: sqlite3.Connection) -> Callable[[], None]:
    """A bigger page cache, a patient busy timeout and rarer checkpoints for the pass;
    returns what puts them back. (Not a contextlib manager: contextlib is ~0.8 ms of the import a
    query pays to reindex one edited file.)"""
    cache = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    busy = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    pages = int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
    conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
    conn.execute(f"PRAGMA busy_timeout = {WRITER_BUSY_MS}")
    conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_CHECKPOINT_PAGES}")

    def restore() -> None:
        conn.execute(f"PRAGMA cache_size = {cache}")
        conn.execute(f"PRAGMA busy_timeout = {busy}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {pages}")

    return restore


__all__ = ["IndexProgress", "IndexStats", "drop_repository", "index_under", "run_index"]
