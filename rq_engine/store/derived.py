"""Derived lookup tables the search layer reads, refreshed by the indexer.

The indexer calls `after_batch` once per committed batch and `after_pass` once
at the end of a pass (after the FTS fill). Search owns what is derived here
(e.g. distinct names with their word-initial and typo keys); the indexer only
knows these two calls, so retrieval structures can change without touching it.
"""

from __future__ import annotations

import sqlite3


def after_batch(conn: sqlite3.Connection, repository_id: int) -> None:
    """Bring derived tables up to date with the batch just committed (own transaction)."""


def after_pass(conn: sqlite3.Connection, repository_id: int) -> None:
    """Finish derived tables at the end of an index pass (own transaction)."""
