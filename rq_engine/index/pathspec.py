"""The quick status's pathspec: which files a miss's `git status` reads.

A miss on a complete index asks git what moved (index/fresh.py). Where source
files are a minority of what git tracks (Django's locale files), the status is
narrowed to them, and to the `.gitignore` files when git tracks one: `git status
-uno -- '*.gitignore' '*.js' '*.py'` (a rule added in place to a committed
`.gitignore` changes no directory, yet it can cover an untracked file the index
holds: git must name that edit, so the check walks). The patterns come from one
`git ls-files` listing and are recorded with the git-state stamp they were taken
at, so a later check reuses them until git's index changes.
"""

from __future__ import annotations

import os

from rq_engine.core.sqlite import sqlite3
from rq_engine.lang.registry import language_for_path

# + checkout root -> "<stamp>\n<pattern>\n…": the pathspec of the source files git tracks
# at that stamp (a miss's quick status reads only those; see `of_listing`)
PATHSPEC = "quickspec:"
# An older rq's record, without the `.gitignore` files: never read, removed with the rest.
OLD_PATHSPEC = "pathspec:"
# Narrow the quick status only when that leaves out at least a third of what git tracks:
# on Django (2,914 of 6,151 files are .py/.js) `git status -uno -- '*.py' '*.js'` takes
# ~7 ms against ~12 ms; on Go's library (5,657 of 8,176) six patterns cost what they save
# (with git's lstat threads, more: 9.5 ms against 8.3).
NARROW_AT_MOST = 2 / 3
# In a narrowed pathspec when git tracks a `.gitignore` (~0.3 ms of git's time on Django).
IGNORE_FILES = "*.gitignore"


def of_listing(listing: bytes) -> tuple[str, ...]:
    """The pathspec of the source files in a `git ls-files -z` listing: `*<suffix>` for
    each suffix one ends in, in its own case (git matches case-sensitively; rq reads
    `x.PY` as Python), `*Rakefile` for a name rq reads whole, and IGNORE_FILES when a
    `.gitignore` is tracked. `(".",)` — everything — when that would leave out less
    than a third of the listing (NARROW_AT_MOST), `()` when it holds none of these.
    ~3 ms for Django's 6,151 paths."""
    counts: dict[bytes, int] = {}
    total = 0
    for name in listing.split(b"\0"):
        if not name:
            continue
        total += 1
        base = name[name.rfind(b"/") + 1 :]
        dot = base.rfind(b".")
        tail = base[dot:] if dot > 0 else base
        counts[tail] = counts.get(tail, 0) + 1
    source: dict[str, int] = {}
    for tail, n in counts.items():
        t = os.fsdecode(tail)
        if language_for_path("_" + t if t.startswith(".") else t):
            source[t] = n
    if sum(source.values()) > total * NARROW_AT_MOST:
        return (".",)
    patterns = {"*" + t for t in source}
    if b".gitignore" in counts:
        patterns.add(IGNORE_FILES)
    return tuple(sorted(patterns))


def recorded(conn: sqlite3.Connection, root: str, stamp: str) -> tuple[str, ...] | None:
    """The pathspec recorded at this git-state stamp, or None (none, or another stamp:
    the index was written since, so git may track other files now)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (PATHSPEC + root,)).fetchone()
    if row is None:
        return None
    was, *spec = str(row[0]).split("\n")
    return tuple(spec) if was == stamp else None


def record(conn: sqlite3.Connection, root: str, stamp: str, spec: tuple[str, ...]) -> None:
    """Record the pathspec at `stamp` (taken before the listing: should git's index
    change meanwhile, the stamp no longer matches and nothing trusts this). Best
    effort: a store too busy to take it only means the next check lists again."""
    from rq_engine.store.txn import transaction

    if any("\n" in p for p in spec):
        return
    try:
        with transaction(conn, join=True):
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                (PATHSPEC + root, "\n".join((stamp, *spec))),
            )
    except sqlite3.Error:
        pass
