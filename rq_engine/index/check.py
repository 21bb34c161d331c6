"""Is the store sound? SQLite's own checks, and the derived tables agreeing with the symbols.

`rq --status` runs SQLite's `quick_check` and `derived`; `rq --check` runs
`integrity_check`, the foreign keys, FTS5's own integrity check (when the
store is writable: it is an INSERT) and `derived`; `rq --index` asks the cheap
`needs_rebuild` after its pass and rebuilds the derived tables when it says so.

The derived tables agree with the symbols when:
- no suspension is in force and all six per-row triggers on `symbols` exist, or
  a live writer holds the suspension (it restores them; a dead one's is repaired
  by the next writer: index/fts.py);
- the FTS index holds one row per symbol row (its per-row `symbols_fts_docsize`
  table counted against `symbols`);
- `names` holds exactly as many rows as the repository has distinct symbol names.
A count comparison, not a row-by-row one: it costs ~1 µs a symbol, and a lost
or stray row changes a count. (A writer between a batch's commit and its names
drain can show a difference for a few milliseconds.)

Stdlib + rq_engine.index.fts + rq_engine.store only; reads only, except the FTS5
integrity check `full` runs on a writable store.
"""

from __future__ import annotations

import sqlite3

from rq_engine.core.record import Record, field
from rq_engine.index import fts
from rq_engine.store.txn import writable

# The per-row triggers m001 (FTS) and m002 (the names queue) create on `symbols`.
TRIGGERS = frozenset(
    f"{prefix}{op}" for prefix in fts.TRIGGER_PREFIXES for op in ("ai", "ad", "au")
)
# At most this many problems of one kind are listed.
MAX_LISTED = 20


class Findings(Record):
    problems: list[str] = field(default_factory=list)  # one line each, for the user
    damaged: set[int] = field(default_factory=set)  # repositories whose derived tables disagree


def sqlite_problems(conn: sqlite3.Connection, *, full: bool) -> list[str]:
    """SQLite's verdict on the file: `quick_check` (O(pages), no index cross-check), or
    with `full` `integrity_check`, the foreign keys and FTS5's integrity check."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}({MAX_LISTED})")]
    except sqlite3.DatabaseError as e:
        return [f"{pragma}: {e}"]
    out = [] if rows == ["ok"] else rows
    if not full or out:
        return out
    try:
        for table, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check").fetchmany(
            MAX_LISTED
        ):
            out.append(f"{table} row {rowid} refers to a missing {parent} row")
        if writable(conn):
            # compares the FTS index with its content table, term by term
            conn.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as e:
        out.append(f"the fuzzy index (FTS): {e}")
    return out


def _counts(conn: sqlite3.Connection, sql: str) -> dict[int, int]:
    return {int(r): int(n) for r, n in conn.execute(sql)}


def derived(conn: sqlite3.Connection) -> Findings:
    """Where the derived tables (FTS, names) disagree with the symbols, per repository.
    Every count is read from one snapshot: a writer committing between two of them
    would otherwise look like a disagreement."""
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        return _derived(conn)
    finally:
        if own:
            conn.execute("ROLLBACK")  # (nothing was written)


def _derived(conn: sqlite3.Connection) -> Findings:
    f = Findings()
    repos = {int(r): str(i) for r, i in conn.execute("SELECT id, identity FROM repositories")}
    sus = fts.suspension_owner(conn)
    if sus is None:
        have = {
            str(r[0])
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'symbols'"
            )
        }
        missing = sorted(TRIGGERS - have)
        if missing:
            f.problems.append(
                f"the per-row triggers {', '.join(missing)} are missing and no writer"
                " suspended them: new symbols would not reach the fuzzy index"
            )
            f.damaged.update(repos)
    elif not sus[0]:
        f.problems.append(
            f"a writer (pid {sus[1]}) died with the fuzzy index's triggers suspended;"
            " the next rq --index repairs it"
        )
        f.damaged.update(repos)
    syms = _counts(conn, "SELECT repository_id, count(*) FROM symbols GROUP BY repository_id")
    in_fts = int(conn.execute("SELECT count(*) FROM symbols_fts_docsize").fetchone()[0])
    if in_fts != sum(syms.values()):
        per = _counts(
            conn,
            "SELECT s.repository_id, count(*) FROM symbols_fts_docsize d"
            " JOIN symbols s ON s.id = d.id GROUP BY s.repository_id",
        )
        for rid, n in sorted(syms.items()):
            if per.get(rid, 0) != n:
                f.problems.append(
                    f"the fuzzy index holds {per.get(rid, 0)} of the {n} symbols of"
                    f" {repos.get(rid, rid)}; the next rq --index rebuilds it"
                )
                f.damaged.add(rid)
        stray = in_fts - sum(per.values())
        if stray:
            f.problems.append(
                f"the fuzzy index holds {stray} rows of symbols that are gone;"
                " the next rq --index rebuilds it"
            )
            f.damaged.update(repos)
    names = _counts(conn, "SELECT repository_id, count(*) FROM names GROUP BY repository_id")
    distinct = _counts(
        conn, "SELECT repository_id, count(DISTINCT name) FROM symbols GROUP BY repository_id"
    )
    queued = _counts(
        conn, "SELECT repository_id, count(*) FROM names_pending GROUP BY repository_id"
    )
    for rid in sorted(set(names) | set(distinct)):
        have_n, want = names.get(rid, 0), distinct.get(rid, 0)
        if have_n == want:
            continue
        # (a writer that died, or met a full disk, between a batch and its drain)
        fix = (
            f"{queued[rid]} name changes are queued, which the next rq --index applies"
            if queued.get(rid)
            else "rq --drop, then rq --index, rebuilds them"
        )
        f.problems.append(
            f"the names table holds {have_n} names for the {want} distinct symbol names"
            f" of {repos.get(rid, rid)}; {fix}"
        )
        f.damaged.add(rid)
    return f


def needs_rebuild(conn: sqlite3.Connection) -> bool:
    """The cheap part of `derived` (no suspension in force, yet a trigger is missing or
    FTS and the symbols differ in count: ~2 ms per 30k symbols), asked by `rq --index`
    after its pass: True when fts.rebuild should run."""
    if fts.suspension_owner(conn) is not None:
        return False  # a live writer restores its own; a dead one's was repaired at the start
    have = {
        str(r[0])
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'symbols'"
        )
    }
    if not TRIGGERS <= have:
        return False  # nothing to restore them from: `derived` reports it
    n_sym, n_fts = conn.execute(  # (one statement: one snapshot)
        "SELECT (SELECT count(*) FROM symbols), (SELECT count(*) FROM symbols_fts_docsize)"
    ).fetchone()
    return bool(n_sym != n_fts)
