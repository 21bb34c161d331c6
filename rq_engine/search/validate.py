"""Staleness: the files behind results about to be shown are checked by stat; a changed one is reindexed.

The index may be older than the work tree (an edit inside the recheck window,
a warmer not done yet). Before a face presents results, the files behind them
— the top N, a handful — are stat'ed against the indexed mtime and size
(~5 µs each). A file that moved is reindexed alone through run_index (the one
core; in-process, no fork pool: the picker calls this from a thread), a file
that is gone loses its rows, and the caller searches again: a moved line, a
deleted definition or a deleted file is never shown (seed: "Staleness").

The file checks themselves (stat against the index, reindex what moved) are
rq_engine/index/revalidate.py's; this module asks them about hits. Imports the
indexer only when a file changed.
"""

from __future__ import annotations

from rq_engine.core.sqlite import sqlite3
from rq_engine.index.revalidate import refresh, stale_files
from rq_engine.search.types import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def stale(conn: sqlite3.Connection, hits: Sequence[Hit]) -> dict[tuple[str, str], list[str]]:
    """(checkout root, repository identity) -> paths whose file no longer matches the
    index (changed, gone, or no longer indexed at all). Empty when all are current."""
    return stale_files(conn, [(h.root, h.repository, h.path) for h in hits])


__all__ = ["refresh", "stale", "stale_files"]
