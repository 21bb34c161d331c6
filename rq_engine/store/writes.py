"""Writer-side typed queries: repositories, checkouts, files, symbols, coverage, drop.

Functions here never open or commit on their own; the caller wraps them in
`transaction(conn)` so a batch is one transaction (one commit per batch, not per
file). Stdlib only; knows no language.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence

from rq_engine.core.columns import BASE, SymbolRow, added_names
from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.store import refs
from rq_engine.store.txn import (
    transaction as transaction,  # re-exported: writers say writes.transaction
)


def now() -> int:
    return int(time.time())


# --- repositories and checkouts -------------------------------------------------


def repository_id(conn: sqlite3.Connection, identity: str) -> int | None:
    row = conn.execute("SELECT id FROM repositories WHERE identity = ?", (identity,)).fetchone()
    return int(row[0]) if row else None


def upsert_repository(conn: sqlite3.Connection, identity: str) -> int:
    t = now()
    conn.execute(
        "INSERT INTO repositories(identity, created_at, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT(identity) DO UPDATE SET updated_at = excluded.updated_at",
        (identity, t, t),
    )
    rid = repository_id(conn, identity)
    assert rid is not None
    return rid


def upsert_checkout(
    conn: sqlite3.Connection, repository_id: int, root: str, branch: str | None
) -> int:
    """Record `root` as a checkout of the repository; a root whose identity changed
    (a remote was added) moves, and the old repository goes if nothing else holds it."""
    row = conn.execute(
        "SELECT id, repository_id FROM checkouts WHERE root_path = ?", (root,)
    ).fetchone()
    if row is None:
        cur = conn.execute(
            "INSERT INTO checkouts(repository_id, root_path, current_branch) VALUES (?, ?, ?)",
            (repository_id, root, branch),
        )
        return int(cur.lastrowid or 0)
    cid, old_repo = int(row[0]), int(row[1])
    conn.execute(
        "UPDATE checkouts SET repository_id = ?, current_branch = ? WHERE id = ?",
        (repository_id, branch, cid),
    )
    if old_repo != repository_id:
        left = conn.execute(
            "SELECT count(*) FROM checkouts WHERE repository_id = ?", (old_repo,)
        ).fetchone()[0]
        if not left:
            delete_repository(conn, old_repo)
    return cid


def prune_checkouts(conn: sqlite3.Connection, repository_id: int) -> list[str]:
    """Forget checkouts of this repository whose directory is gone (a moved repo
    self-heals). Returns their roots."""
    gone = [
        (int(cid), str(root))
        for cid, root in conn.execute(
            "SELECT id, root_path FROM checkouts WHERE repository_id = ?", (repository_id,)
        ).fetchall()
        if not os.path.isdir(root)
    ]
    conn.executemany("DELETE FROM checkouts WHERE id = ?", [(cid,) for cid, _ in gone])
    return [root for _, root in gone]


def checkout_roots(conn: sqlite3.Connection, repository_id: int) -> list[str]:
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT root_path FROM checkouts WHERE repository_id = ?", (repository_id,)
        )
    ]


def mark_checkout_indexed(conn: sqlite3.Connection, checkout_id: int) -> None:
    conn.execute("UPDATE checkouts SET indexed_at = ? WHERE id = ?", (now(), checkout_id))


# --- files and symbols ------------------------------------------------------------


class FileState(Record):
    id: int
    mtime: int | None
    size: int | None
    content_hash: str | None


def file_states(
    conn: sqlite3.Connection, repository_id: int, paths: Sequence[str] | None = None
) -> dict[str, FileState]:
    """Every indexed file of a repository in one SELECT (the no-change pass's only read),
    or only those of `paths`."""
    sql = "SELECT id, path, mtime, size, content_hash FROM files WHERE repository_id = ?"
    if paths is None:
        rows = conn.execute(sql, (repository_id,)).fetchall()
    else:
        rows = []
        for i in range(0, len(paths), 500):
            chunk = paths[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows += conn.execute(f"{sql} AND path IN ({marks})", (repository_id, *chunk))
    return {path: FileState(fid, mtime, size, h) for fid, path, mtime, size, h in rows}


def delete_files(conn: sqlite3.Connection, file_ids: Iterable[int]) -> int:
    """Delete files, their symbols and the pairs they name. Returns the number of
    symbol rows removed."""
    removed = 0
    gone: dict[int, list[str]] = {}
    for fid in file_ids:
        removed += conn.execute("DELETE FROM symbols WHERE file_id = ?", (fid,)).rowcount
        refs.forget(conn, (fid,))
        row = conn.execute(
            "DELETE FROM files WHERE id = ? RETURNING repository_id, path", (fid,)
        ).fetchone()
        if row is not None:
            gone.setdefault(int(row[0]), []).append(str(row[1]))
    for rid, paths in gone.items():
        log_text_changes(conn, rid, paths)
    return removed


# The change log keeps at least this many recent writes; a text cache generation
# older than what is left is rebuilt in full instead of updated.
TEXT_LOG_KEEP = 200_000


def log_text_changes(conn: sqlite3.Connection, repository_id: int, paths: Sequence[str]) -> None:
    """Record that these paths' symbols changed (inside the writer's transaction): the
    repository's `text_seq` then names its new state (m010, rq_engine/text/cache)."""
    if not paths:
        return
    conn.executemany(
        "INSERT INTO text_changes(repository_id, path) VALUES (?, ?)",
        [(repository_id, p) for p in paths],
    )
    seq = int(conn.execute("SELECT last_insert_rowid()").fetchone()[0])
    conn.execute("UPDATE repositories SET text_seq = ? WHERE id = ?", (seq, repository_id))
    if seq % 4096 < len(paths) and seq > TEXT_LOG_KEEP:  # now and then: keep it bounded
        cut = seq - TEXT_LOG_KEEP
        conn.execute("DELETE FROM text_changes WHERE seq <= ?", (cut,))
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'text_changes_floor' AND CAST(value AS INTEGER) < ?",
            (str(cut), cut),
        )


def touch_file(conn: sqlite3.Connection, file_id: int, mtime: int, size: int) -> None:
    """Same content, new mtime: refresh the short-circuit key, keep the symbols."""
    conn.execute("UPDATE files SET mtime = ?, size = ? WHERE id = ?", (mtime, size, file_id))


# The writer's own columns, then a row's facts as core/columns.py declares them (so a
# fact added there is written with no change here).
_STORED = ("repository_id", "file_id", "language", "name_lower", *BASE, *added_names())
_INSERT_SYMBOL = (
    f"INSERT INTO symbols({', '.join(_STORED)}) VALUES ({', '.join('?' * len(_STORED))})"
)


def write_files(
    conn: sqlite3.Connection,
    repository_id: int,
    items: Sequence[
        tuple[str, str, int, int, str, Sequence[SymbolRow], int | None, Sequence[refs.Pair]]
    ],
) -> tuple[list[int], int]:
    """Insert or replace files, all their symbols and the pairs they name (store/refs):
    (path, language, mtime, size, content_hash, rows, existing file id or None, pairs)
    each. One executemany for every
    symbol of the batch (per-file calls cost ~25% more CPU on a cold pass).
    Returns the file ids written, in order, and the largest symbol id before the
    batch's rows went in: those rows, and no others, have ids above it (a new rowid
    is the largest one + 1, and the caller's transaction holds the write lock)."""
    t = now()
    sym: list[tuple[object, ...]] = []
    ids: list[int] = []
    named: list[tuple[int, Sequence[refs.Pair]]] = []
    added = _insert_new_files(conn, repository_id, items, t)
    for path, language, mtime, size, content_hash, rows, existing_id, pairs in items:
        fid: int | None = existing_id
        if fid is None:
            fid = added.pop(path, None)  # (pop: a path twice in a batch replaces itself)
            if fid is None:  # another writer indexed this path since our snapshot: replace it
                fid = int(
                    conn.execute(
                        "SELECT id FROM files WHERE repository_id = ? AND path = ?",
                        (repository_id, path),
                    ).fetchone()[0]
                )
                existing_id = fid
        if existing_id is not None:
            conn.execute("DELETE FROM symbols WHERE file_id = ?", (fid,))
            refs.forget(conn, (fid,))
            conn.execute(
                "UPDATE files SET language = ?, mtime = ?, size = ?, content_hash = ?, "
                "indexed_at = ? WHERE id = ?",
                (language, mtime, size, content_hash, t, fid),
            )
        ids.append(fid)
        if pairs:
            named.append((fid, pairs))
        sym.extend((repository_id, fid, language, r[0].lower(), *r) for r in rows)
    after = int(conn.execute("SELECT coalesce(max(id), 0) FROM symbols").fetchone()[0])
    conn.executemany(_INSERT_SYMBOL, sym)
    refs.add(conn, repository_id, named)
    log_text_changes(conn, repository_id, [it[0] for it in items])
    return ids, after


def _insert_new_files(
    conn: sqlite3.Connection,
    repository_id: int,
    items: Sequence[tuple[str, str, int, int, str, object, int | None, object]],
    t: int,
) -> dict[str, int]:
    """Insert the batch's files that have no row yet, in one executemany (a statement
    per file cost ~30 us each: ~0.05 CPU-s of an LLVM cold pass); returns their ids by
    path. A path another writer inserted since the pass's snapshot is left out (DO
    NOTHING) and so missing here. Inside the caller's transaction, which holds the write
    lock: the rows it inserts, and no others, have ids above the largest before it."""
    fresh = [
        (repository_id, path, language, mtime, size, content_hash, t)
        for path, language, mtime, size, content_hash, _, existing_id, _ in items
        if existing_id is None
    ]
    if not fresh:
        return {}
    top = int(conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()[0])
    conn.executemany(
        "INSERT INTO files(repository_id, path, language, mtime, size, content_hash, "
        "indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(repository_id, path) DO NOTHING",
        fresh,
    )
    return {
        str(p): int(i) for i, p in conn.execute("SELECT id, path FROM files WHERE id > ?", (top,))
    }


def file_ids(conn: sqlite3.Connection, repository_id: int, paths: Sequence[str]) -> dict[str, int]:
    """The current file ids of these paths (inside a write transaction: what a batch
    is about to replace, whatever another writer did since the pass's snapshot)."""
    out: dict[str, int] = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        marks = ",".join("?" * len(chunk))
        out.update(
            (str(p), int(fid))
            for fid, p in conn.execute(
                f"SELECT id, path FROM files WHERE repository_id = ? AND path IN ({marks})",
                (repository_id, *chunk),
            )
        )
    return out


def set_commit_times(conn: sqlite3.Connection, repository_id: int, times: dict[str, int]) -> None:
    """Record each file's last commit time (unix seconds), for the recency feature."""
    conn.executemany(
        "UPDATE files SET commit_time = ? WHERE repository_id = ? AND path = ?",
        ((t, repository_id, p) for p, t in times.items()),
    )


def count_files(conn: sqlite3.Connection, repository_id: int) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM files WHERE repository_id = ?", (repository_id,)
        ).fetchone()[0]
    )


def count_symbols(conn: sqlite3.Connection, repository_id: int) -> int:
    # served by idx_symbols_repo_name (a covering index scan, ~5 ms per 100k rows)
    return int(
        conn.execute(
            "SELECT count(*) FROM symbols WHERE repository_id = ?", (repository_id,)
        ).fetchone()[0]
    )


# --- coverage ---------------------------------------------------------------------


def coverage_status(conn: sqlite3.Connection, repository_id: int, scope: str = "full") -> str:
    row = conn.execute(
        "SELECT status FROM coverage WHERE repository_id = ? AND scope = ?",
        (repository_id, scope),
    ).fetchone()
    return str(row[0]) if row else "never"


def set_coverage(
    conn: sqlite3.Connection,
    repository_id: int,
    status: str,
    *,
    files_seen: int | None = None,
    files_indexed: int | None = None,
    files_skipped: int | None = None,
    files_failed: int | None = None,
    files_unread: str | None = None,
    scope: str = "full",
) -> None:
    """Upsert the coverage row; a count given as None keeps its stored value.
    `files_unread` is lang/unread.py's stored form of the files no plugin reads."""
    conn.execute(
        "INSERT INTO coverage(repository_id, scope, status, files_seen, files_indexed, "
        "files_skipped, files_failed, files_unread, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(repository_id, scope) DO UPDATE SET status = excluded.status, "
        "files_seen = coalesce(excluded.files_seen, files_seen), "
        "files_indexed = coalesce(excluded.files_indexed, files_indexed), "
        "files_skipped = coalesce(excluded.files_skipped, files_skipped), "
        "files_failed = coalesce(excluded.files_failed, files_failed), "
        "files_unread = coalesce(excluded.files_unread, files_unread), "
        "updated_at = excluded.updated_at",
        (
            repository_id,
            scope,
            status,
            files_seen,
            files_indexed,
            files_skipped,
            files_failed,
            files_unread,
            now(),
        ),
    )


# --- drop -------------------------------------------------------------------------


class Dropped(Record):
    identity: str
    checkouts: int
    files: int
    symbols: int


def delete_repository(conn: sqlite3.Connection, repository_id: int) -> Dropped:
    """Remove a repository and everything keyed by it. Explicit deletes, children
    first, so the FTS delete trigger sees every symbol row go."""
    row = conn.execute(
        "SELECT identity FROM repositories WHERE id = ?", (repository_id,)
    ).fetchone()
    identity = str(row[0]) if row else ""
    n_sym = conn.execute("DELETE FROM symbols WHERE repository_id = ?", (repository_id,)).rowcount
    n_files = conn.execute("DELETE FROM files WHERE repository_id = ?", (repository_id,)).rowcount
    conn.execute("DELETE FROM coverage WHERE repository_id = ?", (repository_id,))
    conn.execute("DELETE FROM text_changes WHERE repository_id = ?", (repository_id,))
    refs.drop_repository(conn, repository_id)
    n_co = conn.execute("DELETE FROM checkouts WHERE repository_id = ?", (repository_id,)).rowcount
    conn.execute("DELETE FROM repositories WHERE id = ?", (repository_id,))
    return Dropped(identity, n_co, n_files, n_sym)
