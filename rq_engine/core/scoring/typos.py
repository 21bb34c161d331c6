"""Near misses: a query one or two edits from a name (`sleect` → Select) or from its
start (`HttpRepson` → HttpResponse), the capped edit distance behind them and the
letters a near miss keeps (its highlighting; features.py's scope typos use both).
Stdlib only (the `rq -q` hot path).
"""

from __future__ import annotations

from rq_engine.core.query import fold
from rq_engine.core.scoring.matching import NameMatch, fold_positions, joiner_parts
from rq_engine.core.scoring.weights import MAX_EDITS, WEIGHTS, typo_edits


def edit_distance(a: str, b: str, cap: int = MAX_EDITS) -> int:
    """Optimal-string-alignment distance (a swap of neighbours is one edit), capped:
    returns cap + 1 as soon as the distance must exceed `cap`."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        lo = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            lo = min(lo, v)
        if lo > cap:
            return cap + 1
        prev2, prev = prev, cur
    return prev[-1]


def match_typo(leaf: str, name: str) -> NameMatch | None:
    """A near miss (`sleect` → `select`): up to two edits against the whole folded name.

    The first letter is kept or swapped with the second (`hTtpRequest`). Scored
    by the letters it keeps (query length minus edits). Short queries get
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
    kept = len(q) - d
    pos = tuple(idx[i] for i in _kept_positions(q, low))
    parts = (
        ("typo", WEIGHTS["typo"]),
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
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if q[i] == low[j] else max(dp[i + 1][j], dp[i][j + 1])
    out: list[tuple[int, int]] = []
    i = j = 0
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
