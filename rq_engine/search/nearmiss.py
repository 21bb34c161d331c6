"""The near-miss reads behind the typo layer: names one or two edits from the query.

keys.typo_candidates spells the query's near misses on the query side (~600 for
a 9-letter query, ~10,000 for a 13-letter one, where two edits are allowed);
names_typo finds which of them are names. Probing `names.fold` once per
candidate cost ~1 µs each — 9 ms of a 17 ms miss on Django for `selcet_related`.
Most candidates keep the query's first three letters (edits after them), and
few names of about the query's length share that start: such a group is read as
one range of the index and checked against the set in Python instead, and the
letter-pair variants of that start (~5,000 of ~10,000) are not spelled at all:
keys.is_letter_pair_variant checks the range's names (keys.typo_candidates `keep`).

far_start/far_end reach two new letters, which typo_candidates leaves out;
far_could_join says when that is worth reading, given the pool so far.
Imports the stdlib, rq_engine.core and rq_engine.search only.
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.scoring import IN_ORDER, TWO_EDITS_LEN, WEIGHTS
from rq_engine.core.scoring.typos import edit_distance
from rq_engine.core.scoring.weights import MAX_EDITS
from rq_engine.core.sqlite import sqlite3
from rq_engine.search.keys import (
    MAX_TWO_EDIT_LEN,
    is_letter_pair_variant,
    letter_pairs_apply,
    typo_candidates,
    typo_prefix_starts,
    typo_prefixes,
)
from rq_engine.search.rank import match_quality
from rq_engine.search.retrieval import SCAN_WINDOW, glob_escape, letter_windows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from rq_engine.core.scoring.rank import PoolEntry

_TOP = "\U0010ffff"
#: a start shared by this many candidates is read as a range, not probed one by one
RANGE_GROUP = 64
#: a range row costs about half a probe (no seek of its own); past this share of
#: the group's candidates in rows, the range is crowded and the group is probed
RANGE_SHARE = 2
_START = 3
#: names_typo_far_start reads at most this many folds of its starts' ranges
FAR_ROWS = 6000


class _Plan:
    """How one query's candidates are read: by range (start → candidates) or probe."""

    __slots__ = ("ranges", "probe", "pairs")

    def __init__(
        self, ranges: list[tuple[str, frozenset[str], int, int]], probe: set[str], pairs: bool
    ) -> None:
        self.ranges = ranges  # (start, its candidates, shortest, longest)
        self.probe = probe
        self.pairs = pairs  # the query's own start also admits is_letter_pair_variant


@lru_cache(maxsize=4)
def _plan(folded: str) -> _Plan:
    """Built once per query however many repositories it searches (--all-repos)."""
    pairs = letter_pairs_apply(folded)
    groups: dict[str, set[str]] = {}
    for v in typo_candidates(folded, keep=_START if pairs else 0):
        groups.setdefault(v[:_START], set()).add(v)
    own = folded[:_START]
    if pairs:
        groups.setdefault(own, set())
    ranges: list[tuple[str, frozenset[str], int, int]] = []
    probe: set[str] = set()
    for start, vs in groups.items():
        if (len(vs) >= RANGE_GROUP or (pairs and start == own)) and len(start) == _START:
            lens = [len(v) for v in vs]
            if pairs and start == own:
                lens += [len(folded) - 1, len(folded)]  # a letter-pair variant's lengths
            ranges.append((start, frozenset(vs), min(lens), max(lens)))
        else:
            probe |= vs
    return _Plan(ranges, probe, pairs)


def names_typo(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """Names whose folded form is a near miss of the query (keys.typo_candidates:
    within the scorer's edit budget), in the order of their folded forms."""
    plan = _plan(folded)
    found: list[tuple[str, str]] = []
    probe = plan.probe
    own = folded[:_START]
    for start, vs, short, long in plan.ranges:
        pairs = plan.pairs and start == own
        cap = max(len(vs), 2 * RANGE_GROUP if pairs else 0) // RANGE_SHARE
        rows = conn.execute(
            "SELECT fold, name FROM names WHERE repository_id = ? AND fold >= ? AND fold < ?"
            " AND length(fold) BETWEEN ? AND ? LIMIT ?",
            (repo, start, start + _TOP, short, long, cap + 1),
        ).fetchall()
        if len(rows) > cap:  # a crowded start (`get` in LLVM): probing is cheaper
            probe = probe | vs
            if pairs:
                probe |= {v for v in typo_candidates(folded) if v.startswith(own)}
        else:
            found += [
                (f, n) for f, n in rows if f in vs or (pairs and is_letter_pair_variant(folded, f))
            ]
    if probe:
        # json_each: one bound parameter however many candidates; the planner
        # probes idx_names_fold once per value
        found += conn.execute(
            "SELECT n.fold, n.name FROM names n WHERE n.repository_id = ?"
            " AND n.fold IN (SELECT value FROM json_each(?))",
            (repo, _json_list(probe, folded)),
        ).fetchall()
    found.sort()
    return list(dict.fromkeys(n for _, n in found))[:limit]


def names_typo_far_start(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """Names that may be two edits from a long query where typo_candidates cannot
    reach (two new letters), at most one of them in the query's first half: names
    starting with a keys.typo_prefixes start, within two letters of the query's
    length, and within two edits of it. One indexed range of `names.fold` per start
    (~1 ms on Linux).

    The edits are checked here, not left to `limit`: a start one edit from the half
    can be a whole family's (`rewriteValueaWasm_OpLopCount32`: its half less the `w`
    starts Go's 3,000 `rewriteValueAMD64_*` and `ARM*` names), and the first
    `limit` names read were those, the answer never. Reading FAR_ROWS folds and
    measuring each costs ~3 µs a name that parts from the query early
    (typos.edit_distance skips the shared start and stops two rows after)."""
    starts = typo_prefixes(folded)
    if not starts:
        return []
    n = len(folded)
    # The half as typed first, then its variants in order: which names a cut keeps
    # must not depend on a set's order (it varies from process to process).
    half = folded[: n // 2]
    ordered = [half, *sorted(starts - {half})]
    out: dict[str, None] = {}
    for fold_, name in conn.execute(
        "SELECT n.fold, n.name FROM json_each(?) AS j CROSS JOIN names AS n"
        " ON n.repository_id = ? AND n.fold >= j.value AND n.fold < j.value || ?"
        " WHERE length(n.fold) BETWEEN ? AND ? LIMIT ?",
        (_json_list(ordered, folded), repo, _TOP, n - 2, n + 2, FAR_ROWS),
    ):
        if name not in out and edit_distance(folded, fold_, MAX_EDITS) <= MAX_EDITS:
            out[name] = None
            if len(out) >= limit:
                break
    return list(out)


def names_typo_far_end(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """The other case of names_typo_far_start: both edits before the query's middle
    letter, so the name ends with what follows it. Names sharing the query's first
    letter (a window, as names_first_letter_scan) with that ending, within two
    letters of its length, by GLOB in C (~3 ms a window). The windows are
    retrieval.letter_windows': on a crowded first letter the names around the
    query's first two letters (`trnasfom_isinstance` → transform_isinstance, past
    the first 15,000 of CPython's `t` names). The two share 2 × SCAN_WINDOW: what the
    first leaves unread, the second may read (`pza_sp_request_of` → pxa_ssp_request_of
    was the 16,607th of the kernel's `p` names, all below `pz`, none above)."""
    n = len(folded)
    if n < TWO_EDITS_LEN or n > MAX_TWO_EDIT_LEN:
        return []  # (typo_prefixes' bounds)
    first, tail = folded[0], folded[n // 2 + 1 :]
    pattern = glob_escape(first) + "*" + "".join(glob_escape(c) for c in tail)
    out: dict[str, None] = {}
    (two, rest), (letter, _) = letter_windows(folded)  # from `two` up, then below it
    # what the first window holds: a count over the index range, no row read (~1 ms
    # for a full window at Linux scale)
    (above,) = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM names WHERE repository_id = ?"
        " AND fold >= ? AND fold < ? LIMIT ?)",
        (repo, two, rest, SCAN_WINDOW),
    ).fetchone()
    for start, stop, window in ((two, rest, SCAN_WINDOW), (letter, two, 2 * SCAN_WINDOW - above)):
        for (name,) in conn.execute(
            "SELECT n.name FROM (SELECT rowid AS id, fold FROM names WHERE repository_id = ?"
            " AND fold >= ? AND fold < ? LIMIT ?) AS w CROSS JOIN names AS n ON n.id = w.id"
            " WHERE w.fold GLOB ? AND length(w.fold) BETWEEN ? AND ? LIMIT ?",
            (repo, start, stop, window, pattern, n - 2, n + 2, limit),
        ):
            out[name] = None
    return list(out)[:limit]


def names_typo_prefix(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """Names that start one edit from the query and go on past it: what
    scoring.match_typo_prefix takes (`httprepson` → HttpResponse). One indexed range
    of `names.fold` per keys.typo_prefix_starts start (~75 a query letter; a
    range of a start that no name has costs one seek)."""
    starts = typo_prefix_starts(folded)
    if not starts:
        return []
    return [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT n.name FROM json_each(?) AS j CROSS JOIN names AS n"
            " ON n.repository_id = ? AND n.fold > j.value AND n.fold < j.value || ?"
            " LIMIT ?",
            (_json_list(sorted(starts), folded), repo, _TOP, limit),
        )
    ]


def prefix_could_join(folded: str, pool: Iterable[PoolEntry]) -> bool:
    """Whether to look for near misses of a name's start: only when one could join
    (D14: its evidence, the query less one letter, at least the best in-order
    match's) and outrank the best in-order match (its ceiling: a name no longer
    than the query's letters), and no whole name is one edit away (`list_ead` is
    list_head's slip, not list_add's start). A whole name two edits away does not
    keep it out (`DrprecatedL`: the class Deprecated kept DeprecatedList, one
    edit into its start, out)."""
    n = len(folded)
    tail = WEIGHTS["typo_edit"] + WEIGHTS["typo_prefix"] + WEIGHTS["coverage"] * (n - 1) / n
    return _typo_could_join(n, n - 1, tail, pool, typos=True)


def far_could_join(folded: str, pool: Iterable[PoolEntry]) -> bool:
    """Whether to look two edits away where typo_candidates cannot (two new
    letters): only when no near miss was found, and a two-edit one could both
    join (D14: the letters it keeps, the query's less two, are at least the
    best in-order match's evidence) and match better than the best in-order
    match (its ceiling: every kept letter, a name no longer than them)."""
    n = len(folded)
    return _typo_could_join(n, n - 2, 2 * WEIGHTS["typo_edit"] + WEIGHTS["coverage"], pool)


def _typo_could_join(
    n: int, kept: int, tail: float, pool: Iterable[PoolEntry], *, typos: bool = False
) -> bool:
    """No near miss in the pool yet (with `typos`: none one edit away), and one
    keeping `kept` of the query's `n` letters (ceiling: typo + alignment + `tail`,
    its edits' and coverage's best) could both join by D14 and outrank every
    in-order match."""
    ceiling = WEIGHTS["typo"] + WEIGHTS["alignment"] * kept / n + tail
    for e in pool:
        if e.match.kind == "typo":
            if not typos or e.match.edits <= 1:
                return False
            continue
        if e.match.kind in IN_ORDER and (
            e.match.evidence > kept or match_quality(e.match) >= ceiling
        ):
            return False
    return True


def _json_list(items: Iterable[str], folded: str) -> str:
    """Variants of the query (its letters and a-z0-9) as a JSON array, in the order
    given (a set's order varies from process to process: a read that stops at a
    LIMIT is given a list)."""
    if folded.isprintable() and '"' not in folded and "\\" not in folded:
        # Nothing JSON escapes. Written directly, the json module (~1.5 ms to import)
        # stays off the miss path.
        return '["' + '","'.join(items) + '"]'
    import json

    return json.dumps(list(items))


__all__ = [
    "far_could_join",
    "names_typo",
    "names_typo_far_end",
    "names_typo_far_start",
    "names_typo_prefix",
    "prefix_could_join",
]
