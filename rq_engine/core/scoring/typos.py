"""Near misses: a query one or two edits from a name (`sleect` → Select) or from its
start (`HttpRepson` → HttpResponse), the capped edit distance behind them and the
letters a near miss keeps (its highlighting; features.py's scope typos use both).
Stdlib only (the `rq -q` hot path).
"""

from __future__ import annotations

from rq_engine.core.query import fold
from rq_engine.core.scoring.matching import (
    NameMatch,
    ends_with_joiner,
    fold_positions,
    joiner_parts,
)
from rq_engine.core.scoring.weights import MAX_EDITS, WEIGHTS, WHOLE_NAME_MIN, typo_edits


def edit_distance(a: str, b: str, cap: int = MAX_EDITS) -> int:
    """Optimal-string-alignment distance (a swap of neighbours is one edit), capped:
    the distance, or cap + 1 when it exceeds `cap`.

    What the two share at either end costs nothing and is skipped (a two-edit slip
    in the middle of `rewriteValueWasm_OpRotateLeft8` leaves a few letters to align),
    and only the cells within `cap` of the diagonal are computed: the typo layer
    checks up to 300 names of a shared start, each a ~30 × 30 table in full
    (0.5 ms apiece: 120 ms of one query on Go's standard library)."""
    over = cap + 1
    if abs(len(a) - len(b)) > cap:
        return over
    i, n = 0, min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    j, n = 0, n - i
    while j < n and a[-1 - j] == b[-1 - j]:
        j += 1
    a, b = a[i : len(a) - j], b[i : len(b) - j]
    m = len(b)
    if not a or not m:
        return max(len(a), m)  # (within cap: the lengths differ by at most cap)
    prev2: list[int] = []
    prev = [k if k <= cap else over for k in range(m + 1)]
    for i in range(1, len(a) + 1):
        cur = [over] * (m + 1)
        cur[0] = row_min = i if i <= cap else over
        ai = a[i - 1]
        for k in range(max(1, i - cap), min(m, i + cap) + 1):
            v = prev[k - 1] + (ai != b[k - 1])
            if prev[k] + 1 < v:
                v = prev[k] + 1
            if cur[k - 1] + 1 < v:
                v = cur[k - 1] + 1
            if i > 1 and k > 1 and ai == b[k - 2] and a[i - 2] == b[k - 1] and prev2[k - 2] + 1 < v:
                v = prev2[k - 2] + 1
            cur[k] = v if v < over else over
            if v < row_min:
                row_min = v
        if row_min > cap:
            return over
        prev2, prev = prev, cur
    return prev[m]


def match_typo(leaf: str, name: str) -> NameMatch | None:
    """A near miss (`sleect` → `select`): up to two edits against the whole folded name.

    The first letter is kept or swapped with the second (`hTtpRequest`). Scored
    by the letters it keeps (one edit away, kept_letters; two, the query's less two).
    One edit away and WHOLE_NAME_MIN letters or more, in the abbreviation band
    (`whole_name`): a query one slip from a whole name is that name typed, more
    likely than an abbreviation of a longer one its letters happen to spell
    (`Templtae` is Template, not test_template_tag_escapes). Short queries get
    fewer edits (one under 10 letters, none under 4) or everything would match:
    two edits turn `apiview` into `as_view` and `debounce` into `dbOnce`.
    """
    q = fold(leaf)
    allowed = typo_edits(len(q))
    if not allowed:
        return None
    low, idx = fold_positions(name)
    if not low or not _first_letter_kept(q, low):
        return None
    d = edit_distance(q, low, allowed)
    if d == 0 or d > allowed:
        return None
    kept = kept_letters(q, low) if d == 1 else len(q) - d
    # (not a letter too many: a query longer than the name it nearly spells abbreviates
    # a longer one as often — `dtclass` is dataclass's, not DClass's slip)
    whole = d == 1 and len(low) >= len(q) >= WHOLE_NAME_MIN and not ends_with_joiner(leaf)
    pos = tuple(idx[i] for i in _kept_positions(q, low))
    parts = (
        ("typo", WEIGHTS["typo"]),
        *([("whole_name", WEIGHTS["whole_name"])] if whole else ()),
        ("alignment", round(WEIGHTS["alignment"] * kept / len(q), 1)),
        ("typo_edit", WEIGHTS["typo_edit"] * d),
        ("coverage", round(WEIGHTS["coverage"] * kept / max(len(low), 1), 1)),
    )
    return NameMatch("typo", (*parts, *joiner_parts(leaf, name)), pos, kept, edits=d)


def match_typo_prefix(leaf: str, name: str) -> NameMatch | None:
    """A near miss of the name's start (`HttpRepson` → HttpResponse, `Contxe` →
    Context): one edit from a prefix of the folded name that leaves letters after
    it — what a query typed with a slip looks like before it is finished (the
    picker asks at every keystroke). match_typo's first-letter rule; one edit
    whatever the length, under MIN_TYPO_LEN letters none. Scored like a near miss
    of the letters typed, less `typo_prefix`, so a near miss of a whole name one
    edit away ranks first; `coverage` counts half over the whole name, so the
    shortest completion ranks first among them."""
    q = fold(leaf)
    n = len(q)
    if not typo_edits(n):
        return None
    low, idx = fold_positions(name)
    if len(low) <= n - 1 or not _first_letter_kept(q, low):
        return None
    # the prefix one edit away: as long as the query, a letter shorter (a letter too
    # many typed) or longer (one left out), always short of the whole name
    if not any(edit_distance(q, low[:k], 1) == 1 for k in (n, n - 1, n + 1) if k < len(low)):
        return None
    if low.startswith(q):
        return None  # a literal prefix (match_exact_prefix's)
    kept = n - 1
    pos = tuple(idx[j] for j in _kept_positions(q, low[: n + 1]))
    parts = (
        ("typo", WEIGHTS["typo"]),
        ("alignment", round(WEIGHTS["alignment"] * kept / n, 1)),
        ("typo_edit", WEIGHTS["typo_edit"]),
        ("typo_prefix", WEIGHTS["typo_prefix"]),
        # half over the letters typed (as a near miss of a whole name of them: one
        # edit into a start outranks two edits of a whole name), half over the name
        # (the shortest completion first)
        ("coverage", round(WEIGHTS["coverage"] / 2 * kept * (1 / n + 1 / len(low)), 1)),
    )
    return NameMatch("typo", (*parts, *joiner_parts(leaf, name)), pos, kept, edits=1)


def kept_letters(q: str, low: str) -> int:
    """The query's letters the name has (each as often as the name has it): a swap or
    a letter left out keeps them all (`Templtae`, `validats`), a letter too many or a
    wrong one loses one. D14's evidence of a near miss, and its alignment's."""
    have: dict[str, int] = {}
    for ch in low:
        have[ch] = have.get(ch, 0) + 1
    kept = 0
    for ch in q:
        if have.get(ch, 0):
            have[ch] -= 1
            kept += 1
    return kept


def _first_letter_kept(q: str, low: str) -> bool:
    """A near miss keeps its first letter (`catchAll` is not `matchAll`), or swaps it
    with the second (`ocntext`: the letters of Context, one swap). Both folded, `low`
    not empty."""
    return low[0] == q[0] or low[:2] == q[1::-1]


def _kept_positions(q: str, low: str) -> list[int]:
    """Positions of `low` that a longest common subsequence with `q` keeps (highlighting)."""
    return [j for _, j in kept_pairs(q, low)]


def kept_pairs(q: str, low: str) -> list[tuple[int, int]]:
    """(query index, name index) of the letters a longest common subsequence keeps."""
    m, n = len(q), len(low)
    # The walk below keeps a shared start letter for letter, so the table is built
    # for what follows it only (a near miss of a long name shares most of its start).
    s = 0
    while s < m and s < n and q[s] == low[s]:
        s += 1
    out: list[tuple[int, int]] = [(k, k) for k in range(s)]
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m - 1, s - 1, -1):
        for j in range(n - 1, s - 1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if q[i] == low[j] else max(dp[i + 1][j], dp[i][j + 1])
    i = j = s
    while i < m and j < n:
        if q[i] == low[j]:
            out.append((i, j))
            i += 1
            j += 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    return out
