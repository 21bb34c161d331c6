"""Read-side summary of the index for `rq --status`: repositories, checkouts, coverage, sizes.

Stdlib only; read queries only.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rq_engine.core.record import Record


class CheckoutRow(Record):
    root: str
    branch: str | None
    indexed_at: int | None


class RepoRow(Record):
    id: int
    identity: str
    status: str  # never | warming | complete
    files: int
    symbols: int
    files_seen: int | None
    files_skipped: int | None
    files_failed: int | None
    updated_at: int | None
    checkouts: list[CheckoutRow]
    files_unread: str | None = None  # lang/unread.py's stored tally of files not read


def repositories(conn: sqlite3.Connection) -> list[RepoRow]:
    files = dict(
        conn.execute("SELECT repository_id, count(*) FROM files GROUP BY repository_id").fetchall()
    )
    # GROUP BY over idx_symbols_repo_name: a covering index scan, no table reads.
    syms = dict(
        conn.execute(
            "SELECT repository_id, count(*) FROM symbols GROUP BY repository_id"
        ).fetchall()
    )
    cos: dict[int, list[CheckoutRow]] = {}
    for rid, root, branch, at in conn.execute(
        "SELECT repository_id, root_path, current_branch, indexed_at FROM checkouts ORDER BY root_path"
    ):
        cos.setdefault(int(rid), []).append(CheckoutRow(str(root), branch, at))
    out: list[RepoRow] = []
    for rid, ident, status, seen, skipped, failed, upd, unread in conn.execute(
        "SELECT r.id, r.identity, coalesce(c.status, 'never'), c.files_seen, c.files_skipped, "
        "c.files_failed, coalesce(c.updated_at, r.updated_at), c.files_unread FROM repositories r "
        "LEFT JOIN coverage c ON c.repository_id = r.id AND c.scope = 'full' ORDER BY r.identity"
    ):
        rid = int(rid)
        out.append(
            RepoRow(
                rid,
                str(ident),
                str(status),
                int(files.get(rid, 0)),
                int(syms.get(rid, 0)),
                seen,
                skipped,
                failed,
                upd,
                cos.get(rid, []),
                unread,
            )
        )
    return out


def database_bytes(db: Path) -> int:
    """The index's size on disk: the database plus its -wal and -shm files."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            total += (db.parent / (db.name + suffix)).stat().st_size
        except OSError:
            pass
    return total
