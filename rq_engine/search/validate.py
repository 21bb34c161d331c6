"""Staleness: the files behind results about to be shown are checked by stat; a changed one is reindexed.

The index may be older than the work tree (an edit inside the recheck window,
a warmer not done yet). Before a face presents results, the files behind them
— the top N, a handful — are stat'ed against the indexed mtime and size
(~5 µs each). A file that moved is reindexed alone through run_index (the one
core; in-process, no fork pool: the picker calls this from a thread), a file
that is gone loses its rows, and the caller searches again: a moved line, a
deleted definition or a deleted file is never shown (seed: "Staleness").

The file checks themselves (stat against the index, reindex what moved) are
rq_engine/index/revalidate.py's; this module asks them about hits, and runs the
rounds of search, reindex and search again (`until_current`) every answer goes
through. Imports the indexer only when a file changed.
"""

from __future__ import annotations

import os

from rq_engine.core.sqlite import sqlite3
from rq_engine.index.revalidate import refresh, stale_files
from rq_engine.search.types import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rq_engine.search.pipeline import Searcher

# Revalidate-and-search rounds before the repository is taken for moved (and caught up).
VALIDATE_ROUNDS = 2


def stale(conn: sqlite3.Connection, hits: Sequence[Hit]) -> dict[tuple[str, str], list[str]]:
    """(checkout root, repository identity) -> paths whose file no longer matches the
    index (changed, gone, or no longer indexed at all). Empty when all are current."""
    return stale_files(conn, [(h.root, h.repository, h.path) for h in hits])


def until_current(
    conn: sqlite3.Connection, search: Callable[[], tuple[Searcher, list[Hit]]]
) -> tuple[Searcher, list[Hit], bool]:
    """`search()`, and search again while the files behind the results moved (each round
    reindexes them): a stale line, definition or file is never returned. The flag
    says the work tree moved more than the results show — a file behind them is gone
    (renamed, deleted), a definition left its file (moved to another one, which only
    git can name), or they kept moving — so what else moved must be asked."""
    s, hits = search()
    wider = False
    for _ in range(VALIDATE_ROUNDS):
        moved = stale(conn, hits)
        if not moved:
            return s, hits, wider
        wider = wider or any(
            not os.path.exists(os.path.join(root, p)) for (root, _), ps in moved.items() for p in ps
        )
        refresh(conn, moved)
        before = hits
        s, hits = search()
        wider = wider or _left_their_files(before, hits, moved)
    moved = stale(conn, hits)
    if moved:  # still moving (or under a gone checkout): drop what cannot be vouched for
        gone = {(root, p) for (root, _), ps in moved.items() for p in ps}
        hits = [h for h in hits if (h.root, h.path) not in gone]
        wider = True
    return s, hits, wider


def _left_their_files(
    before: list[Hit], after: list[Hit], moved: dict[tuple[str, str], list[str]]
) -> bool:
    """Whether a result of a reindexed file is no longer in it: `helper` cut from a.py
    was most likely pasted into another file, edited in the same moment."""
    files = {(root, p) for (root, _), ps in moved.items() for p in ps}
    still = {(h.root, h.path, h.name) for h in after}
    return any((h.root, h.path) in files and (h.root, h.path, h.name) not in still for h in before)


__all__ = ["refresh", "stale", "stale_files", "until_current"]
