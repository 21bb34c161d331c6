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
# of a huge repository does not hold the write lock for seconds at once
# (~20k names ≈ 0.3 s on the bench machine).
DRAIN_CHUNK = 20000


def _by_key(row: tuple[int, int, int]) -> int:
    return row[1]


def after_batch(conn: sqlite3.Connection, repository_id: int) -> None:
    """Bring derived tables up to date with the batch just committed (own transaction)."""
    drain(conn)


def after_pass(conn: sqlite3.Connection, repository_id: int) -> None:
    """Finish derived tables at the end of an index pass (own transaction)."""
    drain(conn)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'names_pending'"
        ).fetchone()
        is not None
    )


def drain(conn: sqlite3.Connection) -> int:
    """Apply every queued name change; returns how many were applied.

    Runs inside the caller's transaction when one is open (the migration),
    else in its own BEGIN IMMEDIATE … COMMIT per chunk.
    """
    if not _has_tables(conn):
        return 0
    total = 0
    while True:
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                "SELECT repository_id, name, gone FROM names_pending LIMIT ?", (DRAIN_CHUNK,)
            ).fetchall()
            if rows:
                _apply(conn, rows)
            if own:
                conn.execute("COMMIT")
        except BaseException:
            if own:
                conn.execute("ROLLBACK")
            raise
        total += len(rows)
        if len(rows) < DRAIN_CHUNK:
            return total


def _apply(conn: sqlite3.Connection, rows: list[tuple[int, str, int]]) -> None:
    live = {int(r[0]) for r in conn.execute("SELECT id FROM repositories")}
    # added first, then gone: a name inserted and deleted within one batch ends absent
    added = [(r, n) for r, n, g in rows if not g and r in live]
    gone = [(r, n) for r, n, g in rows if g]
    dels: list[tuple[int, int, int]] = []
    for repo, name in added:
        folded, skel, ini = name_keys(name)
        cur = conn.execute(
            "INSERT OR IGNORE INTO names(repository_id, name, fold, skel, ini) VALUES (?, ?, ?, ?, ?)",
            (repo, name, folded, skel, ini),
        )
        if cur.rowcount != 1 or cur.lastrowid is None:
            continue  # already known
        nid = cur.lastrowid
        dels.extend((repo, k, nid) for k in typo_keys(folded))
    # one statement for the whole chunk (~15 key rows a name), in key order: the
    # B-tree then fills page by page instead of touching a random page per row
    dels.sort(key=_by_key)
    conn.executemany(
        "INSERT OR IGNORE INTO name_dels(repository_id, key, name_id) VALUES (?, ?, ?)", dels
    )
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
        conn.execute("DELETE FROM names WHERE id = ?", (nid,))
    conn.executemany(
        "DELETE FROM names_pending WHERE repository_id = ? AND name = ? AND gone = ?", rows
    )
