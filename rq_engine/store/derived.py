"""Derived lookup tables the search layer reads, refreshed by the indexer.

Search owns what is derived here: the per-repository distinct `names` with
their fold/skeleton/initials keys and the `name_dels` typo deletion
neighbourhood (migrations m002-m005). Two ways in:

- Incremental passes: triggers on `symbols` queue every inserted or deleted
  name in `names_pending`; `after_batch` drains the queue (names, per committed
  batch) and `after_pass` derives the queued typo keys, so nothing here runs
  inside the indexer's own transactions.
- Cold passes (a repository's first index): the queue triggers are suspended
  with the FTS ones (index/fts.py) and `ColdNames` writes names directly inside
  each batch's transaction from keys the pool workers computed, then every typo
  key of the pass in one statement at the end.

Imports only the stdlib and rq_engine.search.keys (stdlib only).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from rq_engine.search.keys import (
    MIN_TYPO_LEN,
    NameRecord,
    name_keys,
    name_record,
    typo_keys,
    typo_keys_json,
)

# One drain transaction handles at most this many queued names, so a cold pass
# of a huge repository does not hold the write lock for seconds at once.
DRAIN_CHUNK = 20000
# Typo keys are derived for at most this many names a transaction (~20 key rows
# each, held in memory and sorted before the insert).
TYPO_CHUNK = 100000
# A cold pass inserts its typo keys in chunks of at least this many rows (Django
# has 560k): 4 key-ordered chunks cost the same CPU as one (smaller sorts offset
# the inserts into a bigger tree), and all but the last overlap parsing.
TYPO_FLUSH_ROWS = 150_000
# Typo key rows travel as one JSON object per statement, {"name_id": [key, …]},
# expanded by json_each and inserted in key order: ~0.4 s CPU for Django's 560k
# rows, where an executemany of (repository_id, key, name_id) tuples cost ~0.9 s
# (the per-row parameter binding, not the B-tree) plus ~0.5 s to build and sort them.
_INSERT_DELS = (
    "INSERT OR IGNORE INTO name_dels(repository_id, key, name_id)"
    " SELECT ?, k.value, CAST(n.key AS INTEGER) FROM json_each(?) n, json_each(n.value) k"
    " ORDER BY 2, 3"
)


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
        by_repo: dict[int, list[str]] = {}
        for nid, repo, folded in todo:
            if repo is not None and len(folded) >= MIN_TYPO_LEN:
                keys = typo_keys_json(folded)
                by_repo.setdefault(int(repo), []).append(f'"{nid}":{keys}')
        for repo, parts in by_repo.items():
            insert_typo_json(conn, repo, "{" + ",".join(parts) + "}")
        if todo:
            conn.execute("DELETE FROM name_dels_pending WHERE name_id <= ?", (todo[-1][0],))
    return len(todo)


def insert_typo_json(conn: sqlite3.Connection, repository_id: int, doc: str) -> None:
    """Insert `{"name_id": [key, …], …}` as name_dels rows, key-ordered so the B-tree
    fills page by page (the caller's transaction)."""
    if doc != "{}":
        conn.execute(_INSERT_DELS, (repository_id, doc))


# --- cold passes -------------------------------------------------------------------


class ColdNames:
    """A cold pass's derived rows, written directly while the queue triggers are off.

    `learn` takes the keys the pool workers computed (keys.name_record, sent
    with the file that first used each name); `write`, inside a batch's
    transaction, inserts the batch's new names, so prefix search reads them as
    soon as the batch commits. Typo keys wait until TYPO_FLUSH_ROWS of them
    accumulate and go in with that batch as one key-ordered statement; `finish`,
    inside the transaction that ends the pass, inserts the rest. Per batch,
    those random inserts dirtied most of the `name_dels` B-tree in every commit
    (~0.5 s more CPU on Django, most of it rewriting pages into the WAL); all at
    the end, they were ~0.55 s of serial work after parsing, with a core idle.
    (A warming search accepts only exact and prefix matches: it never reads
    typo keys before the pass ends.) A name no worker keyed (an in-process
    pass) is keyed here.
    """

    def __init__(self, repository_id: int) -> None:
        self.repository_id = repository_id
        self._records: dict[str, NameRecord] = {}
        self._done: set[str] = set()
        self._dels: list[str] = []  # '"name_id":[key, …]' per name written
        self._rows = 0  # typo key rows in _dels

    def learn(self, records: Iterable[NameRecord]) -> None:
        self._records.update((r[0], r) for r in records)

    def write(self, conn: sqlite3.Connection, names: Iterable[str]) -> None:
        new = sorted(set(names).difference(self._done))
        if not new:
            return
        self._done.update(new)
        repo = self.repository_id
        # Ids are assigned here (under the batch's write lock) so the typo keys can
        # be kept keyed by id without reading the rows back.
        base = int(conn.execute("SELECT coalesce(max(id), 0) FROM names").fetchone()[0]) + 1
        rows = []
        dels = []
        rows_n = 0
        records = self._records
        for nid, name in enumerate(new, base):
            rec = records.pop(name, None) or name_record(name)
            rows.append((nid, repo, name, rec[1], rec[2], rec[3]))
            if len(rec[4]) > 2:
                dels.append(f'"{nid}":{rec[4]}')
                rows_n += rec[4].count(",") + 1
        cur = conn.executemany(
            "INSERT OR IGNORE INTO names(id, repository_id, name, fold, skel, ini)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        if cur.rowcount == len(rows):
            self._dels += dels
            self._rows += rows_n
            if self._rows >= TYPO_FLUSH_ROWS:
                self.finish(conn)
        else:
            # Some names were already there (a concurrent writer's, under their
            # own ids): queue this batch's typo keys for the drain instead.
            conn.executemany(
                "INSERT OR IGNORE INTO name_dels_pending(name_id)"
                " SELECT id FROM names WHERE repository_id = ? AND name = ?",
                [(repo, n) for n in new],
            )

    def finish(self, conn: sqlite3.Connection) -> None:
        """Insert the typo keys of the names written since the last chunk (the caller's
        transaction)."""
        insert_typo_json(conn, self.repository_id, "{" + ",".join(self._dels) + "}")
        self._dels = []
        self._rows = 0


def queue_typo_keys(conn: sqlite3.Connection, names_since: int) -> None:
    """Queue the typo keys of names created after `names_since` for the next drain
    (a cold pass that ended early: its names are in, their keys are not)."""
    conn.execute(
        "INSERT OR IGNORE INTO name_dels_pending(name_id) SELECT id FROM names WHERE id > ?",
        (names_since,),
    )


def reconcile(conn: sqlite3.Connection) -> None:
    """Queue what the per-row triggers would have queued while they were suspended
    and someone wrote without them: every stored name missing from `names`, and
    every `names` row no symbol still uses (the drain verifies). The caller's
    transaction; the next drain applies it."""
    conn.execute(
        "INSERT OR IGNORE INTO names_pending(repository_id, name, gone)"
        " SELECT DISTINCT s.repository_id, s.name, 0 FROM symbols s WHERE NOT EXISTS"
        " (SELECT 1 FROM names n WHERE n.repository_id = s.repository_id AND n.name = s.name)"
    )
    # lower() is ASCII-only in SQLite: a non-ASCII name may be queued needlessly,
    # and the drain's own check (Python's lower) keeps it.
    conn.execute(
        "INSERT OR IGNORE INTO names_pending(repository_id, name, gone)"
        " SELECT n.repository_id, n.name, 1 FROM names n WHERE NOT EXISTS"
        " (SELECT 1 FROM symbols s WHERE s.repository_id = n.repository_id"
        " AND s.name_lower = lower(n.name) AND s.name = n.name)"
    )


def rebuild_typo_keys(conn: sqlite3.Connection) -> None:
    """Recompute the whole deletion neighbourhood (migration m005: rows orphaned by
    dropped repositories could alias names that later reused their ids)."""
    conn.execute("DELETE FROM name_dels")
    conn.execute("DELETE FROM name_dels_pending")
    conn.execute("INSERT INTO name_dels_pending(name_id) SELECT id FROM names")
    while _typo_chunk(conn) == TYPO_CHUNK:
        pass
