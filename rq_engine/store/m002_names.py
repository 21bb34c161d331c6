"""Steps m002-m006: the retrieval tables' first migrations (store/migrations.py lists them).

Released: never edited. `names` and its keys, the typo queue and its removal, the
trigger that makes derived rows leave with their repository. Kept apart so
migrations.py reads as the later history.
"""

from __future__ import annotations

from collections.abc import Callable

from rq_engine.core.sqlite import sqlite3
from rq_engine.store.sqlscript import statements

NAMES_STEPS: list[tuple[str, str | Callable[[sqlite3.Connection], None]]] = []


# --- m002: retrieval tables for fuzzy and typo search (owned by rq_engine.search) ----
#
# `names` holds each repository's distinct names with the keys the fuzzy layers
# range-scan (fold = lower-case without joiners, consonant skeleton, initials);
# `name_dels` is the typo deletion neighbourhood (crc32 of the name and of each
# one-letter deletion). Per-row triggers only queue names (one small insert);
# `store.derived.after_batch` computes the keys in Python per committed batch,
# so the indexer never runs application functions inside SQL.
M002_NAMES = """
CREATE TABLE names (
    id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    fold TEXT NOT NULL,
    skel TEXT NOT NULL,
    ini TEXT NOT NULL,
    UNIQUE(repository_id, name)
);
CREATE INDEX idx_names_fold ON names(repository_id, fold);
CREATE INDEX idx_names_skel ON names(repository_id, skel);
CREATE INDEX idx_names_ini ON names(repository_id, ini);
CREATE TABLE name_dels (
    repository_id INTEGER NOT NULL,
    key INTEGER NOT NULL,
    name_id INTEGER NOT NULL,
    PRIMARY KEY (repository_id, key, name_id)
) WITHOUT ROWID;
CREATE TABLE names_pending (
    repository_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    gone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (repository_id, name, gone)
) WITHOUT ROWID;
CREATE TRIGGER names_pending_ai AFTER INSERT ON symbols BEGIN
    INSERT OR IGNORE INTO names_pending(repository_id, name, gone) VALUES (new.repository_id, new.name, 0);
END;
CREATE TRIGGER names_pending_ad AFTER DELETE ON symbols BEGIN
    INSERT OR IGNORE INTO names_pending(repository_id, name, gone) VALUES (old.repository_id, old.name, 1);
END;
CREATE TRIGGER names_pending_au AFTER UPDATE OF name ON symbols BEGIN
    INSERT OR IGNORE INTO names_pending(repository_id, name, gone) VALUES (old.repository_id, old.name, 1);
    INSERT OR IGNORE INTO names_pending(repository_id, name, gone) VALUES (new.repository_id, new.name, 0);
END;
"""


def m002_names(conn: sqlite3.Connection) -> None:
    """Create the retrieval tables and queue every stored name (keyed once every step
    is applied: migrate())."""
    for stmt in statements(M002_NAMES):
        conn.execute(stmt)
    conn.execute(
        "INSERT OR IGNORE INTO names_pending(repository_id, name, gone) "
        "SELECT DISTINCT repository_id, name, 0 FROM symbols"
    )


NAMES_STEPS.append(("m002_names", m002_names))


# --- m003: typo keys at pass end --------------------------------------------------
#
# Deriving the deletion neighbourhood per committed batch made it the critical
# path of a cold pass (4.4 s of Django's; ~16 key rows a name inserted at random
# places in a growing B-tree). New names now queue in `name_dels_pending`, and
# `store.derived.after_pass` derives all their keys in one key-ordered insert.
# A warming search only accepts exact/prefix matches, so it never needs them
# sooner. `names.ini` has no reader: its index goes.
M003_TYPO_QUEUE = """
CREATE TABLE name_dels_pending (name_id INTEGER PRIMARY KEY);
DROP INDEX idx_names_ini;
"""


def m003_typo_queue(conn: sqlite3.Connection) -> None:
    # Frozen: the names m002 queued stay queued. A migration that ran today's key
    # functions would write whatever they compute today into a schema of its own
    # time; migrate() drains the queue once every step is applied, with the code
    # (and the schema) of now.
    for stmt in statements(M003_TYPO_QUEUE):
        conn.execute(stmt)


NAMES_STEPS.append(("m003_typo_queue", m003_typo_queue))


# --- m004: the initials index returns ------------------------------------------
#
# Abbreviation retrieval on huge repositories reads names by their word
# initials (`hwia` → HashWithIndifferentAccess) instead of scanning every name
# sharing the first letter (~300k for `s` on Linux, ~100 ms).
NAMES_STEPS.append(
    ("m004_names_ini", "CREATE INDEX IF NOT EXISTS idx_names_ini ON names(repository_id, ini);")
)


# --- m005: derived rows leave with their repository -------------------------------
#
# `names` follows a dropped repository by its foreign-key cascade, which ran
# before the names queue could be drained: the drain then found no `names` row
# and left that repository's `name_dels` rows behind (28k-560k rows a drop).
# Worse, a repository or name created later can reuse the freed ids, and the
# stale keys then propose its names as typo candidates. A trigger now deletes
# every derived row of a deleted repository. (It also rebuilt the deletion
# neighbourhood from `names`, ~20 s at Linux scale; m006 drops that table, so
# the rebuild is skipped: the state after m006 is the same either way.)
M005_DERIVED_DROP = """
CREATE TRIGGER IF NOT EXISTS derived_repositories_ad AFTER DELETE ON repositories BEGIN
    DELETE FROM name_dels WHERE repository_id = old.id;
    DELETE FROM names_pending WHERE repository_id = old.id;
    DELETE FROM names WHERE repository_id = old.id;
END;
"""


def m005_derived_drop(conn: sqlite3.Connection) -> None:
    for stmt in statements(M005_DERIVED_DROP):
        conn.execute(stmt)
    conn.execute("DELETE FROM names WHERE repository_id NOT IN (SELECT id FROM repositories)")
    conn.execute(
        "DELETE FROM names_pending WHERE repository_id NOT IN (SELECT id FROM repositories)"
    )


NAMES_STEPS.append(("m005_derived_drop", m005_derived_drop))


# --- m006: typo candidates come from the query side (D28) -------------------------
#
# `name_dels` stored each name's one-letter deletions (~20 rows a name: 560k for
# Django, 79M for Linux) so a query's deletions could meet them. Deriving and
# inserting them was ~1.2 s of CPU in a 4 s Django cold index. The search now
# generates a query's near misses itself (search.keys.typo_candidates, ~1 ms of
# probes into idx_names_fold at Linux scale), so the table, its queue and the
# trigger's reference to it go.
M006_TYPO_BY_FOLD = """
DROP TRIGGER IF EXISTS derived_repositories_ad;
CREATE TRIGGER derived_repositories_ad AFTER DELETE ON repositories BEGIN
    DELETE FROM names_pending WHERE repository_id = old.id;
    DELETE FROM names WHERE repository_id = old.id;
END;
DROP TABLE IF EXISTS name_dels_pending;
DROP TABLE IF EXISTS name_dels;
"""
NAMES_STEPS.append(("m006_typo_by_fold", M006_TYPO_BY_FOLD))
