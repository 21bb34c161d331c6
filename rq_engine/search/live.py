"""The live scan of an untracked directory, merged with the index; never imports textual, rich or mcp.

The seed's first rung ("zero index → pure live scan"): a query run in a non-git
directory nobody asked to index still answers. `scan` walks the directory
natively (its .gitignore files apply, nested repositories are not entered),
indexes at most LIVE_MAX_FILES source files into a private in-memory store with
the real indexer, and ranks them with the real Searcher, so an answer ranks as
it would once the directory is indexed. Repositories of the persistent index
that lie under the directory are searched where they are (read-only; no index
is created) and left out of the walk, so nothing is counted twice. `answer` is
the query service's Answer from one scan (`rq -q` in such a directory).

Measured on a 2-core machine (load ~3 from other work), Django files copied
into a plain directory: 500 files (1.6 MB, 4.6k definitions) scan in 0.2-0.5 s
(walk ~4 ms, in-memory store ~2 ms, parse and write 0.2-0.45 s, the high end
being a process's first scan that loads the parser; search 1-10 ms); 2,000
files (12.9 MB, 29k definitions) in 1.3-1.6 s; 50 files in ~45 ms. Parsing
dominates, so LIVE_BUDGET_MS is what bounds a big directory.

Imports the stdlib and rq_engine only: no textual, rich or mcp; tree-sitter
loads through the indexer's parse path, and only when there is a file to parse.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import Checkout
from rq_engine.core.record import Record
from rq_engine.lang.registry import language_for_path
from rq_engine.search.answer import Answer
from rq_engine.search.pipeline import Searcher
from rq_engine.search.types import Hit
from rq_engine.store.db import connect, connect_memory
from rq_engine.store.paths import index_db_path

# At most this many source files are parsed live: 2,000 of Django's took 1.3-1.6 s
# (~0.7 ms each on two cores), inside LIVE_BUDGET_MS, and a home directory is
# cut rather than parsed whole.
LIVE_MAX_FILES = 2000
# Walk and parse stop at this many milliseconds; what was parsed by then is searched.
LIVE_BUDGET_MS = 2000


class LiveResult(Record):
    """What a live scan found: `hits` ranked as the engine ranks, cut to the limit;
    `complete` when every source file under the directory was scanned within the
    bounds; `files` how many source files the scan looked at."""

    __slots__ = ("hits", "complete", "files")
    __hash__ = None  # type: ignore[assignment]  # mutable
    hits: list[Hit]
    complete: bool
    files: int

    def __init__(self, hits: list[Hit], complete: bool, files: int) -> None:
        self.hits = hits
        self.complete = complete
        self.files = files


def scan(
    cwd: Path,
    query: str,
    *,
    limit: int,
    budget_ms: int | None = None,
    cancel: CancelToken | None = None,
    workers: int | None = None,
    max_files: int = LIVE_MAX_FILES,
) -> LiveResult:
    """Answer `query` in the untracked directory `cwd`: a bounded live scan of its files
    plus the indexed repositories under it, merged by score (ties by path).

    Hits' `root` is the directory they were found under (`cwd` itself for the live
    part), so `hit.abspath` names the real file. A cancelled scan returns no hits.
    """
    live = LiveIndex.build(
        cwd, budget_ms=budget_ms, cancel=cancel, workers=workers, max_files=max_files
    )
    try:
        return live.search(query, limit=limit, cancel=cancel)
    finally:
        live.close()


def answer(
    cwd: str, query: str, *, limit: int, budget_ms: int | None, cancel: CancelToken
) -> Answer:
    """The query service's answer in the untracked directory `cwd` (a `scan`): a hit,
    a miss when every file was scanned, else warming, with the note that says how to
    index it."""
    res = scan(Path(cwd), query, limit=limit, budget_ms=budget_ms, cancel=cancel)
    if res.hits:
        outcome = "hit"
    else:
        outcome = "miss" if res.complete else "warming"
    note = ""
    if not res.complete:
        note = f"{cwd} is not indexed and too big to scan whole; run rq --index {cwd}"
    return Answer(res.hits, outcome, "never", cwd, None, cancel.cancelled, note)


class LiveIndex:
    """One live scan kept for many queries (the picker, typing in an untracked
    directory): the in-memory store of the scanned files plus the persistent index's
    repositories under the directory. `build` scans; `search` answers."""

    def __init__(
        self,
        root: Path,
        mem: sqlite3.Connection | None,
        store: sqlite3.Connection | None,
        indexed: list[Path],
        complete: bool,
        files: int,
    ) -> None:
        self.root = root
        self.mem = mem
        self.store = store
        self.indexed = indexed
        self.complete = complete
        self.files = files

    @staticmethod
    def build(
        cwd: Path,
        *,
        budget_ms: int | None = None,
        cancel: CancelToken | None = None,
        workers: int | None = None,
        max_files: int = LIVE_MAX_FILES,
    ) -> LiveIndex:
        # deferred: the indexer and walker cost ~24 ms to import, which a face that
        # imports this module but queries an indexed repository should not pay
        from rq_engine.index.walker import walk_native_bounded

        root = Path(os.path.abspath(cwd)).resolve()
        budget = LIVE_BUDGET_MS if budget_ms is None else budget_ms
        deadline = time.monotonic() + budget / 1000
        store = _open_store()
        try:
            indexed = _indexed_under(store, root) if store is not None else []
            skip = [os.path.relpath(r, root).replace(os.sep, "/") for r in indexed]
            paths, complete = walk_native_bounded(
                root, max_files, keep=_is_source, skip=skip, deadline=deadline
            )
            mem = None
            files = 0
            if paths and not _cancelled(cancel):
                mem, files, parsed_all = _scan_files(root, paths, deadline, cancel, workers)
                complete = complete and parsed_all
        except BaseException:
            if store is not None:
                store.close()
            raise
        return LiveIndex(root, mem, store, indexed, complete and not _cancelled(cancel), files)

    def search(self, query: str, *, limit: int, cancel: CancelToken | None = None) -> LiveResult:
        hits: list[Hit] = []
        if self.mem is not None:
            # all_repos: the store holds only this directory, and it still answers if
            # `root` sits inside a git work tree (where locate() looks for the git root)
            hits += _final_hits(Searcher(self.mem, self.root, all_repos=True), query, limit, cancel)
        if self.store is not None:
            hits += _search_store(self.store, self.indexed, query, limit, cancel)
        if _cancelled(cancel):
            return LiveResult(hits=[], complete=False, files=self.files)
        hits.sort(key=lambda h: (-h.score.total, h.path, h.line, h.root))
        return LiveResult(hits=hits[:limit], complete=self.complete, files=self.files)

    def close(self) -> None:
        for conn in (self.mem, self.store):
            if conn is not None:
                conn.close()
        self.mem = self.store = None


def _scan_files(
    root: Path,
    paths: list[str],
    deadline: float,
    cancel: CancelToken | None,
    workers: int | None,
) -> tuple[sqlite3.Connection, int, bool]:
    """Index `paths` into a fresh in-memory store: (the store, files looked at, whether
    every path was parsed before the deadline)."""
    from rq_engine.index.indexer import run_index

    mem = connect_memory()
    try:
        # The identity `checkout_for` gives a plain directory: the project name
        # feeds a scoring feature (path_project), so it must match a real index.
        co = Checkout(root=root, identity=f"local:{root}", branch=None, git_dir=None)
        stats = run_index(mem, co, files=paths, deadline=deadline, cancel=cancel, workers=workers)
    except BaseException:
        mem.close()
        raise
    files = stats.files_indexed + stats.files_skipped + stats.files_failed
    return mem, files, not (stats.timed_out or stats.cancelled)


def _search_store(
    store: sqlite3.Connection,
    roots: list[Path],
    query: str,
    limit: int,
    cancel: CancelToken | None,
) -> list[Hit]:
    """Each indexed repository under the directory, searched as if from its root."""
    hits: list[Hit] = []
    searched: set[int | None] = {None}
    for sub in roots:
        if _cancelled(cancel):
            break
        s = Searcher(store, sub)
        if s.repo_id not in searched:  # (a checkout root may resolve to an enclosing one)
            searched.add(s.repo_id)
            hits += _final_hits(s, query, limit, cancel)
    return hits


def _final_hits(s: Searcher, query: str, limit: int, cancel: CancelToken | None) -> list[Hit]:
    last = None
    for batch in s.search(query, limit=limit, cancel=cancel):
        last = batch
    return last.hits if last is not None and last.final else []


def _open_store() -> sqlite3.Connection | None:
    """The persistent index, read-only; None when there is none (a zero index)."""
    path = index_db_path()
    if not path.exists():
        return None
    return connect(path, readonly=True)


def _indexed_under(conn: sqlite3.Connection, root: Path) -> list[Path]:
    """One checkout root per indexed repository strictly under `root` (the most
    recently indexed checkout when several are), existing directories only."""
    prefix = str(root).rstrip("/") + "/"
    # '0' is the character after '/': the range is every path starting with prefix.
    rows = conn.execute(
        "SELECT repository_id, root_path FROM checkouts"
        " WHERE root_path >= ? AND root_path < ?"
        " ORDER BY indexed_at IS NULL, indexed_at DESC, root_path",
        (prefix, prefix[:-1] + "0"),
    ).fetchall()
    seen: set[int] = set()
    out: list[Path] = []
    for rid, path in rows:
        if int(rid) in seen or not os.path.isdir(path):
            continue
        seen.add(int(rid))
        out.append(Path(path))
    return sorted(out)


def _is_source(rel: str) -> bool:
    return language_for_path(rel) is not None


def _cancelled(cancel: CancelToken | None) -> bool:
    return cancel is not None and cancel.cancelled


__all__ = ["LIVE_BUDGET_MS", "LIVE_MAX_FILES", "LiveIndex", "LiveResult", "scan"]
