"""Layer 2's fuzzy candidates: the names a query may abbreviate, and how each matches.

Plain functions the pipeline's run (search/layers.py) asks what to fetch: the
caps on what one query reads and matches, the names read by first letter, word
initials and consonant skeleton (retrieval.py's reads) and matched in Python,
and the package-prefixed names (`bufscanner` → bufio's Scanner). The run keeps
its pool, the substring read and every row fetch (a scoped query's rules are
its). Loaded only when a query gets past the confidence gate: an exact hit, the
common `rq -q`, never does. Imports the stdlib, rq_engine.core and
rq_engine.search only.
"""

from __future__ import annotations

from rq_engine.core.query import Query
from rq_engine.core.scoring import (
    NameMatch,
    match_exact_prefix,
    match_fuzzy,
    skeleton,
    via_package_feature,
)
from rq_engine.core.scoring.rank import Row
from rq_engine.core.sqlite import sqlite3
from rq_engine.search import retrieval as rt
from rq_engine.search.rank import match_quality

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container

# Caps on what one query decodes and scores in Python (~5 µs a row scored).
FUZZY_NAMES = 400  # names from the first-letter scan
SKELETON_NAMES = 200
SUBSTRING_ROWS = 400
FUZZY_MATCH = 250  # of those, the shortest matched in Python
FUZZY_KEEP = 80  # best-matching fuzzy names whose definitions are fetched
INITIALS_MATCH = 40  # of the initials reads, matched whatever their length
# A package-prefixed query's head and tail each have at least this many letters:
# Go's `io`, `os`, Python's `re`, Rust's `fs` are packages, and `db`, `tx`, `is`
# names (`iocopy` → io.Copy, `sqldb` → sql.DB, `errorsis` → errors.Is).
PACKAGE_MIN_PART = 2
PACKAGE_MIN_QUERY = 5
# A shorter tail is the whole name (`db` is DB, not every name starting `db`).
PACKAGE_TAIL_PREFIX = 3


def caps(limit: int, literal: int) -> tuple[int, int]:
    """(names to match, substring rows to read) when exact and prefix matches
    already fill `literal` of the `limit` slots."""
    # Literal matches outrank every fuzzy one (bands), so with `literal` of the
    # `limit` slots taken this layer competes only for the rest: match fewer
    # names (still shortest first). A picker keystroke on `Mut` in Go's std
    # matched ~456 names for its last 2 slots (~10 ms); now ~40.
    room = max(limit - literal, 0)
    match_cap = FUZZY_MATCH if not literal else max(40, min(FUZZY_MATCH, 8 * room))
    sub_cap = SUBSTRING_ROWS if not literal else max(40, min(SUBSTRING_ROWS, 8 * room))
    return match_cap, sub_cap


def matched_names(
    conn: sqlite3.Connection,
    rid: int,
    q: Query,
    seen: Container[str],
    match_cap: int,
) -> dict[str, NameMatch]:
    """The FUZZY_KEEP best-matching names of one repository the query may abbreviate,
    best first, each with its match; names in `seen` (already fetched) left out."""
    leaf, qf = q.leaf, q.leaf_fold
    cand = rt.names_first_letter_scan(conn, rid, qf, FUZZY_NAMES)
    initials = rt.names_by_initials(conn, rid, qf, FUZZY_NAMES)
    cand += initials
    cand += rt.names_skeleton_prefix(conn, rid, skeleton(leaf), SKELETON_NAMES)
    # Matching costs ~30 µs a name: match the shortest first (coverage favours
    # them anyway) and at most match_cap (FUZZY_MATCH at most) of them — and, on
    # top, the names whose initials the query spells most of: a long name is what
    # an abbreviation is for, and on a crowded first letter the shortest cut left
    # `drcr`'s devm_reset_controller_register (its initials) unmatched behind 250
    # shorter names that merely hold those letters.
    uniq = sorted(dict.fromkeys(cand), key=lambda n: (len(n), n))[:match_cap]
    have = set(uniq)
    uniq += [n for n in initials[:INITIALS_MATCH] if n not in have]
    scored: list[tuple[float, str, NameMatch]] = []
    for n in uniq:
        if n in seen:
            continue
        m = match_fuzzy(leaf, n) or match_exact_prefix(leaf, n)
        if m is not None:
            scored.append((match_quality(m), n, m))
    scored.sort(key=lambda t: (-t[0], t[1]))
    keep = scored[:FUZZY_KEEP]
    return {n: m for _, n, m in keep}


def package_prefixed(
    conn: sqlite3.Connection, rid: int, q: Query, pool: Container[int]
) -> list[tuple[Row, NameMatch]]:
    """`bufscanner` → bufio's Scanner, `jsondec` → json's Decoder, `shutilcopy` →
    shutil.py's copy: the head of the query names the directory or the file, the
    tail starts the name. Matched as one fuzzy match over `dir/Name` so the usual
    alignment rules apply. Rows in `pool` are left out; a row two cuts of the query
    find comes once, with the first one's match (the pool would keep that one too)."""
    qf = q.leaf_fold
    if len(qf) < PACKAGE_MIN_QUERY or q.scope or not qf.isalnum():
        return []
    found: dict[int, tuple[Row, NameMatch]] = {}
    for cut in range(PACKAGE_MIN_PART, len(qf) - PACKAGE_MIN_PART + 1):
        head, tail = qf[:cut], qf[cut:]
        whole = len(tail) < PACKAGE_TAIL_PREFIX
        for row in rt.package_split_rows(conn, rid, head, tail, 200, whole=whole):
            if row.id in pool or row.id in found or row.parent:
                continue  # a package names its top-level definitions, not members
            # the nearest directory so named, or the file itself (Python's `shutil.py`)
            comps = row.path.split("/")
            comps[-1] = comps[-1].partition(".")[0]
            at = len(comps) - 1
            while at >= 0 and not comps[at].lower().startswith(head):
                at -= 1
            if at < 0:
                continue
            qual = f"{comps[at]}/{row.name}"
            m = match_fuzzy(q.leaf, qual)
            off = len(comps[at]) + 1
            if m is None or not m.positions or m.positions[0] != 0:
                continue
            pos = tuple(p - off for p in m.positions if p >= off)
            # directories between the one named and the file's own: `sqltx` is sql.Tx
            # before sql/driver's Tx (another package, or a module re-exported above)
            feature = via_package_feature(max(0, len(comps) - 2 - at))
            parts = (*m.parts, *feature)
            found[row.id] = (row, NameMatch(m.kind, parts, pos, m.evidence))
    return list(found.values())


__all__ = ["caps", "matched_names", "package_prefixed"]
