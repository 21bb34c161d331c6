"""Derived lookup tables the search layer reads, refreshed by the indexer.

The indexer calls `after_batch` once per committed batch and `after_pass` once
at the end of a pass (after the FTS fill). Search owns what is derived here:
the per-repository distinct `names` with their fold/skeleton/initials keys and
the `name_dels` typo deletion neighbourhood (migration m002). Triggers on
`symbols` queue every inserted or deleted name in `names_pending`; draining the
queue computes keys in Python, so nothing here runs inside the indexer's own
transactions. Imports only the stdlib and rq_engine.search.keys (stdlib only).
"""

from __future__ import annotations

import sqlite3

from rq_engine.search.keys import name_keys, typo_keys

# One drain transaction handles at most this many queued names, so a cold pass
# of a huge repository does not hold the write lock for seconds at once.
DRAIN_CHUNK = 20000
# Typo keys are derived for at most this many names a transaction (~16 key rows
# each, held in memory and sorted before the insert).
TYPO_CHUNK = 100000


def _by_key(row: tuple[int, int, int]) -> int:
    return row[1]


def after_batch(conn: sqlite3.Connection, repository_id: int) -> None:
    """Bring the names table up to date with the batch just committed (own transaction).

    Exact, prefix and fuzzy search read it at once; typo keys wait for after_pass.
    """
    drain(conn, typo=False)


def after_pass(conn: sqlite3.Connection, repository_id: int) -> None:
    """Finish derived tables at the end of an index pass: the typo keys of new names."""
    drain(conn, typo=True)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'name_dels_pending'"
        ).fetchone()
        is not None
    )


def drain(conn: sqlite3.Connection, *, typo: bool = True) -> int:
    """Apply every queued name change (and, with `typo`, derive queued typo keys).

    Returns how many queued name changes were applied. Runs inside the caller's
    transaction when one is open (a migration), else in its own BEGIN
    IMMEDIATE … COMMIT per chunk.
    """
    if not _has_tables(conn):
        return 0
    total = 0
    while True:
        with _txn(conn):
            rows = conn.execute(
                "SELECT repository_id, name, gone FROM names_pending LIMIT ?", (DRAIN_CHUNK,)
            ).fetchall()
            if rows:
                _apply(conn, rows)
        total += len(rows)
        if len(rows) < DRAIN_CHUNK:
            break
    if typo:
        while _typo_chunk(conn) == TYPO_CHUNK:
            pass
    return total


class _txn:
    """BEGIN IMMEDIATE … COMMIT unless the caller already holds a transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.own = False

    def __enter__(self) -> None:
        self.own = not self.conn.in_transaction
        if self.own:
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        if self.own:
            self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


def _apply(conn: sqlite3.Connection, rows: list[tuple[int, str, int]]) -> None:
    live = {int(r[0]) for r in conn.execute("SELECT id FROM repositories")}
    # added first, then gone: a name inserted and deleted within one batch ends absent
    added = [(r, n) for r, n, g in rows if not g and r in live]
    gone = [(r, n) for r, n, g in rows if g]
    for repo, name in added:
        folded, skel, ini = name_keys(name)
        cur = conn.execute(
            "INSERT OR IGNORE INTO names(repository_id, name, fold, skel, ini) VALUES (?, ?, ?, ?, ?)",
            (repo, name, folded, skel, ini),
        )
        if cur.rowcount == 1 and cur.lastrowid is not None:
            conn.execute("INSERT INTO name_dels_pending(name_id) VALUES (?)", (cur.lastrowid,))
    for repo, name in gone:
        still = conn.execute(
            "SELECT 1 FROM symbols WHERE repository_id = ? AND name_lower = ? AND name = ? LIMIT 1",
            (repo, name.lower(), name),
        ).fetchone()
        if still:
            continue
        row = conn.execute(
            "SELECT id, fold FROM names WHERE repository_id = ? AND name = ?", (repo, name)
        ).fetchone()
        if row is None:
            continue
        nid, folded = row
        conn.executemany(
            "DELETE FROM name_dels WHERE repository_id = ? AND key = ? AND name_id = ?",
            [(repo, k, nid) for k in typo_keys(folded)],
        )
        conn.execute("DELETE FROM name_dels_pending WHERE name_id = ?", (nid,))
        conn.execute("DELETE FROM names WHERE id = ?", (nid,))
    conn.executemany(
        "DELETE FROM names_pending WHERE repository_id = ? AND name = ? AND gone = ?", rows
    )


def _typo_chunk(conn: sqlite3.Connection) -> int:
    """Derive the typo keys of up to TYPO_CHUNK queued names in one key-ordered insert:
    the B-tree then fills page by page instead of touching a random page per row."""
    with _txn(conn):
        todo = conn.execute(
            "SELECT p.name_id, n.repository_id, n.fold FROM name_dels_pending p"
            " LEFT JOIN names n ON n.id = p.name_id ORDER BY p.name_id LIMIT ?",
            (TYPO_CHUNK,),
        ).fetchall()
        dels: list[tuple[int, int, int]] = []
        for nid, repo, folded in todo:
            if repo is not None:
                dels.extend((repo, k, nid) for k in typo_keys(folded))
        dels.sort(key=_by_key)
        conn.executemany(
            "INSERT OR IGNORE INTO name_dels(repository_id, key, name_id) VALUES (?, ?, ?)", dels
        )
        if todo:
            conn.execute("DELETE FROM name_dels_pending WHERE name_id <= ?", (todo[-1][0],))
    return len(todo)
