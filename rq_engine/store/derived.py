"""Derived lookup tables the search layer reads, refreshed by the indexer.

Search owns what is derived here: the per-repository distinct `names` with
their fold/skeleton/initials keys (migrations m002-m006; typo candidates are
generated on the query side and probed against `names.fold`, D28). Two ways in:

- Incremental passes: triggers on `symbols` queue every inserted or deleted
  name in `names_pending`; `after_batch` drains the queue per committed batch,
  so nothing here runs inside the indexer's own transactions.
- Cold passes (a repository's first index): the queue triggers are suspended
  with the FTS ones (index/fts.py) and `ColdNames` writes names directly inside
  each batch's transaction from keys the pool workers computed.

Imports only the stdlib and rq_engine.core (namekeys: stdlib only).
"""

from __future__ import annotations

from collections.abc import Iterable

from rq_engine.core.namekeys import NameRecord, name_keys, name_record
from rq_engine.core.sqlite import sqlite3
from rq_engine.store.txn import transaction

# One drain transaction handles at most this many queued names, so a cold pass
# of a huge repository does not hold the write lock for seconds at once.
DRAIN_CHUNK = 20000


def after_batch(conn: sqlite3.Connection, repository_id: int) -> None:
    """Bring the names table up to date with the batch just committed (own transaction):
    exact, prefix, fuzzy and typo search read it at once."""
    drain(conn)


def drain(conn: sqlite3.Connection) -> int:
    """Apply every queued name change.

    Returns how many queued name changes were applied. Runs inside the caller's
    transaction when one is open (a migration), else in its own BEGIN
    IMMEDIATE … COMMIT per chunk.
    """
    total = 0
    while True:
        with transaction(conn, join=True):
            rows = conn.execute(
                "SELECT repository_id, name, gone FROM names_pending LIMIT ?", (DRAIN_CHUNK,)
            ).fetchall()
            if rows:
                _apply(conn, rows)
        total += len(rows)
        if len(rows) < DRAIN_CHUNK:
            break
    return total


def _apply(conn: sqlite3.Connection, rows: list[tuple[int, str, int]]) -> None:
    """Apply queued name changes in set-sized statements (a reindexed file queues every
    old name as gone and every new one as added: ~400 single-row statements for one
    2,800-line file before, ~8 ms of a search revalidating it)."""
    live = {int(r[0]) for r in conn.execute("SELECT id FROM repositories")}
    # added first, then gone: a name inserted and deleted within one batch ends absent
    added = sorted({(r, n) for r, n, g in rows if not g and r in live})
    gone = sorted({(r, n) for r, n, g in rows if g})
    conn.executemany(
        "INSERT OR IGNORE INTO names(repository_id, name, fold, skel, ini) VALUES (?, ?, ?, ?, ?)",
        [(repo, name, *name_keys(name)) for repo, name in added],
    )
    by_repo: dict[int, list[str]] = {}
    for repo, name in gone:
        by_repo.setdefault(repo, []).append(name)
    dead: list[tuple[int, str]] = []
    for repo, names in by_repo.items():
        still: set[str] = set()
        for i in range(0, len(names), 400):
            chunk = names[i : i + 400]
            lowers = sorted({n.lower() for n in chunk})
            marks = ",".join("?" * len(lowers))
            still.update(
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT name FROM symbols WHERE repository_id = ?"
                    f" AND name_lower IN ({marks})",
                    (repo, *lowers),
                )
            )
        dead += [(repo, n) for n in names if n not in still]
    conn.executemany("DELETE FROM names WHERE repository_id = ? AND name = ?", dead)
    conn.executemany(
        "DELETE FROM names_pending WHERE repository_id = ? AND name = ? AND gone = ?", rows
    )


# --- cold passes -------------------------------------------------------------------


class ColdNames:
    """A cold pass's derived rows, written directly while the queue triggers are off.

    `learn` takes the keys the pool workers computed (namekeys.name_record, sent
    with the file that first used each name); `write`, inside a batch's
    transaction, inserts the batch's new names, so search reads them as soon
    as the batch commits. A name no worker keyed (an in-process pass) is keyed
    here.
    """

    def __init__(self, repository_id: int) -> None:
        self.repository_id = repository_id
        self._records: dict[str, NameRecord] = {}
        self._done: set[str] = set()

    def learn(self, records: Iterable[NameRecord]) -> None:
        self._records.update((r[0], r) for r in records)

    def write(self, conn: sqlite3.Connection, names: Iterable[str]) -> None:
        new = sorted(set(names).difference(self._done))
        if not new:
            return
        self._done.update(new)
        repo = self.repository_id
        records = self._records
        rows = []
        for name in new:
            rec = records.pop(name, None) or name_record(name)
            rows.append((repo, name, rec[1], rec[2], rec[3]))
        # OR IGNORE: a concurrent writer may have added some of these names already.
        conn.executemany(
            "INSERT OR IGNORE INTO names(repository_id, name, fold, skel, ini)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
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
