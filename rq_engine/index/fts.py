"""Suspending and restoring the per-row `symbols` triggers around a cold pass, crash-safely.

A cold pass inserts tens of thousands of rows; the per-row triggers (the FTS
index, and the `names_pending` queue the derived tables drain) roughly double
its write cost. So a cold pass drops the three `symbols_fts_*` and three
`names_pending_*` triggers, inserts (each batch writing its new names
directly: store.derived.ColdNames, and its rows into the FTS table: fill()),
then in one transaction fills whatever is left and recreates the triggers.

Crash safety: while the triggers are gone, meta `fts_suspended` holds the owner
(pid, process start time and a token) and the triggers' own SQL. Any pass that
finds an entry whose owner is dead (the same pid with another start time is a
new process, not the owner: index/owner.py) repairs it: a full FTS 'rebuild',
the names queue reconciled with the symbols (store.derived.reconcile), plus
the triggers.

Every indexer batch written while the triggers are off — the owner's or
another writer's — maintains FTS and the names queue itself, for exactly the
files it touched: `forget` before their old rows go (FTS 'delete' with the old
values, names queued as gone), `fill` after their new rows are in. So a bulk
pass over an indexed repository (a pull, a checkout: index/indexer.py) can
replace rows under suspended triggers, and a search's small pass running
beside a warmer's bulk pass costs no rebuild. Another writer that deletes
rows without doing so (`drop`) sets `fts_needs_rebuild` through note_write(),
and the owner then rebuilds and reconciles at the end.

Stdlib and rq_engine.store only.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from rq_engine.core.record import Record
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import owner
from rq_engine.store import derived
from rq_engine.store.writes import transaction

SUSPENDED_KEY = "fts_suspended"
NEEDS_REBUILD_KEY = "fts_needs_rebuild"
# The per-row triggers on `symbols` a cold pass drops (m001's FTS, m002's names queue).
TRIGGER_PREFIXES = ("symbols_fts_", "names_pending_")


class Suspension(Record):
    token: str


def _loads(raw: str) -> dict[str, object]:
    import json  # (~2 ms: a pass that finds no suspension reads one meta row, no JSON)

    try:
        val = json.loads(raw)
    except ValueError:  # a damaged marker: nobody owns it (repair rebuilds FTS)
        return {}
    return val if isinstance(val, dict) else {}


def _dumps(state: dict[str, object]) -> str:
    import json

    return json.dumps(state)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def _triggers(conn: sqlite3.Connection) -> dict[str, str]:
    return {
        str(n): str(sql)
        for n, sql in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'symbols'"
        )
        if str(n).startswith(TRIGGER_PREFIXES)
    }


def _owner_alive(state: dict[str, object]) -> bool:
    if "start" not in state:
        # Stamped by an rq that wrote a bare pid: its number may belong to any process
        # by now, so it is taken for dead (repairing under a live owner is safe: its
        # batches keep FTS and the names whole either way, fill()).
        return False
    who = owner.Owner.from_json(state)
    return who is not None and owner.alive(who)


def _restore(conn: sqlite3.Connection, state: dict[str, object], *, rebuild: bool) -> None:
    """Recreate the triggers, after rebuilding the FTS table and reconciling the derived
    names with the symbols when asked (a dead owner, or a write that skipped upkeep).
    Without `rebuild`, every batch kept FTS whole itself (forget/fill). Caller holds
    the write transaction."""
    if rebuild:
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('rebuild')")
        derived.reconcile(conn)
    have = _triggers(conn)
    saved = state.get("triggers")
    for name, sql in (saved if isinstance(saved, dict) else {}).items():
        if name not in have:
            conn.execute(str(sql))
    conn.execute("DELETE FROM meta WHERE key IN (?, ?)", (SUSPENDED_KEY, NEEDS_REBUILD_KEY))


def suspension_owner(conn: sqlite3.Connection) -> tuple[bool, int] | None:
    """The suspension in force, if any, as (its owner is alive, its pid): what `rq
    --status` and `rq --check` say about the triggers. One read; writes nothing."""
    raw = _meta(conn, SUSPENDED_KEY)
    if raw is None:
        return None
    state = _loads(raw)
    who = owner.Owner.from_json(state)
    return _owner_alive(state), who.pid if who is not None else 0


def rebuild(conn: sqlite3.Connection) -> None:
    """Rebuild the FTS index from the symbols and reconcile the derived names with
    them, then drain: the repair for derived tables found disagreeing with the
    symbols while no suspension is in force (rq_engine/index/check.py)."""
    with transaction(conn):
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('rebuild')")
        derived.reconcile(conn)
    derived.drain(conn)


def repair(conn: sqlite3.Connection) -> bool:
    """Restore FTS after a writer that died mid cold pass. True if a repair ran."""
    raw = _meta(conn, SUSPENDED_KEY)
    if raw is None:
        return False
    state = _loads(raw)
    who = owner.Owner.from_json(state)
    if who is not None and who.pid == os.getpid():
        if state.get("token") in _live_tokens:
            return False  # ours, still running (nested call)
    elif _owner_alive(state):
        return False  # a live bulk pass elsewhere: it restores on its own
    with transaction(conn):
        raw = _meta(conn, SUSPENDED_KEY)  # re-read under the write lock
        if raw is None:
            return False
        _restore(conn, _loads(raw), rebuild=True)
    derived.drain(conn)
    return True


_live_tokens: set[str] = set()


def suspend(conn: sqlite3.Connection) -> Suspension | None:
    """Drop the per-row triggers for a bulk pass. None when another live pass already did."""
    with transaction(conn):
        if _meta(conn, SUSPENDED_KEY) is not None:
            return None  # someone's bulk pass: our batches keep FTS whole under it (forget/fill)
        trig = _triggers(conn)
        token = os.urandom(16).hex()  # (uuid: ~2 ms more to import)
        state = {**owner.me().as_json(), "token": token, "triggers": trig}
        conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (SUSPENDED_KEY, _dumps(state)))
        for name in trig:
            conn.execute(f'DROP TRIGGER "{name}"')
    _live_tokens.add(token)
    return Suspension(token)


def suspended(conn: sqlite3.Connection) -> str | None:
    """The token of the suspension in force (inside the caller's transaction), or None."""
    raw = _meta(conn, SUSPENDED_KEY)
    if raw is None:
        return None
    return str(_loads(raw).get("token", ""))


def _ids(file_ids: Collection[int]) -> str:
    return ",".join(str(int(i)) for i in file_ids)


def forget(conn: sqlite3.Connection, file_ids: Collection[int]) -> None:
    """Before these files' symbol rows are deleted or replaced under suspended triggers:
    take the rows out of FTS (an external-content table needs the old values) and
    queue their names as gone, as the delete triggers would. No-op with triggers on."""
    if not file_ids or suspended(conn) is None:
        return
    ids = _ids(file_ids)
    conn.execute(
        "INSERT INTO symbols_fts(symbols_fts, rowid, name)"
        f" SELECT 'delete', id, name FROM symbols WHERE file_id IN ({ids})"
    )
    conn.execute(
        "INSERT OR IGNORE INTO names_pending(repository_id, name, gone)"
        f" SELECT DISTINCT repository_id, name, 1 FROM symbols WHERE file_id IN ({ids})"
    )


def fill(
    conn: sqlite3.Connection,
    own: Suspension | None,
    after: int | None,
    *,
    queue_names: bool = False,
) -> None:
    """Index the symbol rows just written (those with ids above `after`: see
    writes.write_files; None, no rows) into FTS, inside their batch's transaction,
    while the triggers are off; with `queue_names`, queue their names as
    the insert trigger would (a writer that is not the owner: the owner writes its
    names directly, store.derived.ColdNames). Per batch rather than once at the end:
    the same work, but it overlaps parsing, and a warming fuzzy search sees each batch
    as it commits. No-op when the triggers are on — including when someone took the
    owner for dead and repaired (the triggers index the rows themselves then)."""
    if after is None:
        return
    token = suspended(conn)
    if token is None:
        return
    if own is not None and token != own.token:
        queue_names = True  # the owner's suspension was repaired and replaced by another
    # (a rowid range: ~10% fewer instructions than by file_id through idx_symbols_file)
    conn.execute(
        "INSERT INTO symbols_fts(rowid, name) SELECT id, name FROM symbols WHERE id > ?", (after,)
    )
    if queue_names:
        conn.execute(
            "INSERT OR IGNORE INTO names_pending(repository_id, name, gone)"
            " SELECT DISTINCT repository_id, name, 0 FROM symbols WHERE id > ?",
            (after,),
        )


def note_write(conn: sqlite3.Connection, own: Suspension | None) -> None:
    """Call inside a write transaction that changes symbol rows without forget/fill
    (a drop): under someone else's suspension the owner must then rebuild at the end."""
    raw = _meta(conn, SUSPENDED_KEY)
    if raw is None:
        return
    if own is not None and _loads(raw).get("token") == own.token:
        return
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (NEEDS_REBUILD_KEY,))


def resume(conn: sqlite3.Connection, own: Suspension) -> None:
    """End a bulk pass: restore the triggers (rebuilding FTS and reconciling the names
    first if a write skipped upkeep) and drain the names queue before returning."""
    _live_tokens.discard(own.token)
    with transaction(conn):
        raw = _meta(conn, SUSPENDED_KEY)
        state = _loads(raw) if raw is not None else {}
        if state.get("token") == own.token:
            _restore(conn, state, rebuild=_meta(conn, NEEDS_REBUILD_KEY) is not None)
        # else repaired by someone who thought we were dead (and maybe suspended again
        # since): every batch of ours kept FTS whole through forget/fill either way.
    derived.drain(conn)  # the names forget() queued as gone, and a reconcile's
