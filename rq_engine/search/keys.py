"""A query's typo candidates: the near misses the typo layer looks up in `names.fold`.

The keys a stored name is looked up by (fold, skeleton, initials) live in
core/namekeys.py, which the writer (store/derived.py, the indexer's pool workers)
and the reader share. No sqlite3.
"""

from __future__ import annotations

# The typo budget (core/scoring): no retry under MIN_TYPO_LEN letters, two edits
# from TWO_EDITS_LEN on.
from rq_engine.core.scoring import MIN_TYPO_LEN, TWO_EDITS_LEN

#: longer queries get no typo retry (pasted, not typed: ~75 variants a letter)
MAX_TYPO_LEN = 64
#: …and longer ones no two-edit variants (~(2n)²/2 of them)
MAX_TWO_EDIT_LEN = 40
#: …nor, past this, the two-edit variants that add a letter (~72 n² of them:
#: 12k and ~6 ms of probes on Go's standard library at 14 letters)
MAX_LETTER_PAIR_LEN = 14
# Letters a typo may add or substitute: folded names are mostly these; a query's
# own letters are added (`$`, `?`, non-ASCII).
_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def typo_candidates(query_fold: str, keep: int = 0) -> set[str]:
    """The folded names a near miss of the query may have: what the typo layer looks up.

    Mirrors scoring.match_typo, which accepts a name that keeps the query's first
    letter (or swaps it with the second) and is within one edit (queries of 4-9
    letters) or two (10 and more), a swap of neighbours counting as one. Generated on the query side and probed
    against `names.fold` (idx_names_fold), so indexing stores no typo keys at all:
    the deletion-key table this replaced held ~20 rows a name (560k for Django,
    79M for Linux) and was ~1.2 s of a 4 s Django cold index (D28).

    Every one-edit variant is generated: ~75 a query letter, ~1 ms of probes at
    Linux scale. Of the two-edit variants: those where neither edit needs a new
    letter (deletions, swaps, a letter moved further), and up to 14 letters
    those where one letter is too many and the other edit adds or replaces one
    (what the deletion keys found). Two new letters (two substitutions) would
    be ~36² variants a letter pair; the deletion keys never found those either:
    typo_prefixes below reaches them by the name's start instead.

    `keep` > 0 leaves out the letter-pair variants (a letter too many and one
    more) whose two edits both fall at or after position `keep`: each of those
    starts with the query's first `keep` letters, and the reader checks the few
    names of that start with is_letter_pair_variant instead of spelling ~9,000
    of them for a 13-letter query (~5 ms).
    """
    q = query_fold
    n = len(q)
    if n < MIN_TYPO_LEN or n > MAX_TYPO_LEN:
        return set()
    alphabet = _ALPHABET.union(q[1:])
    out = one_edit(q, alphabet)
    out.update(q + c for c in alphabet)
    if n >= TWO_EDITS_LEN and n <= MAX_TWO_EDIT_LEN:
        out |= _two_cheap_edits(q)
    if n >= TWO_EDITS_LEN and n <= MAX_LETTER_PAIR_LEN:
        out |= _extra_letter_and_one_more(q, alphabet, keep)
    out.discard(q)
    return {v for v in out if len(v) >= MIN_TYPO_LEN - 1}


def typo_prefixes(query_fold: str) -> set[str]:
    """Starts a name two edits from a long query may have: its first half as typed and
    every one-edit variant of it (the first letter kept, or swapped with the second).

    Two edits of which at least one falls in the query's second half leave at most
    one in the first: the name then starts with one of these (~75 a letter of the
    half, against ~36² a letter pair for the whole query's two-new-letter variants
    typo_candidates leaves out: `HtpRequewt` → HttpRequest, `JsnRespinse` →
    JsonResponse; nearmiss.names_typo_far_end covers the other case, both edits
    in the first half, by the name's end). Empty below TWO_EDITS_LEN or above
    MAX_TWO_EDIT_LEN letters.
    """
    q = query_fold
    n = len(q)
    if n < TWO_EDITS_LEN or n > MAX_TWO_EDIT_LEN:
        return set()
    half = q[: n // 2]
    return {half} | one_edit(half, _ALPHABET.union(half[1:]))


def one_edit(q: str, alphabet: frozenset[str]) -> set[str]:
    """`q` one edit off, its first letter kept (or swapped with the second: `ocntext`
    → context), as scoring.match_typo and match_typo_prefix accept: a letter too
    many, two neighbours swapped, a wrong letter or one left out (not after the
    last letter: the callers differ there)."""
    out = {q[1] + q[0] + q[2:]} if len(q) > 1 else set()
    for i in range(1, len(q)):
        head, tail = q[:i], q[i + 1 :]
        out.add(head + tail)  # an extra letter typed
        if tail:
            out.add(head + tail[0] + q[i] + tail[1:])  # neighbours swapped
        out.update(head + c + tail for c in alphabet)  # a wrong letter
        out.update(head + c + q[i:] for c in alphabet)  # a letter left out
    return out


def typo_prefix_starts(query_fold: str) -> set[str]:
    """The starts a name must have for scoring.match_typo_prefix to take it: the
    query one edit off (its first letter kept or swapped). A letter left out after
    the last one is no start of its own: such a name starts with the query itself,
    a literal prefix. Empty outside the typo layer's lengths (~75 a letter)."""
    q = query_fold
    if len(q) < MIN_TYPO_LEN or len(q) > MAX_TYPO_LEN:
        return set()
    out = one_edit(q, _ALPHABET.union(q[1:]))
    out.discard(q)
    return out


def _extra_letter_and_one_more(q: str, alphabet: frozenset[str], keep: int = 0) -> set[str]:
    """Variants where the query has a letter too many and one more edit needs a new
    letter: a wrong letter (`serialise_responsee`) or a missing one elsewhere.
    With `keep`, only those with an edit before position `keep`."""
    out: set[str] = set()
    n = len(q)
    for i in range(1, n):
        d = q[:i] + q[i + 1 :]
        # both edits at or after `keep`: left to is_letter_pair_variant
        for j in range(1, n - 1) if not keep or i < keep else range(1, min(keep, n - 1)):
            head, tail = d[:j], d[j + 1 :]
            out.update(head + c + tail for c in alphabet)  # …and a wrong letter
            tail = d[j:]
            out.update(head + c + tail for c in alphabet)  # …and a letter left out
        if not keep or i < keep:
            out.update(d + c for c in alphabet)
    return out


def letter_pairs_apply(query_fold: str) -> bool:
    """Whether typo_candidates holds letter-pair variants for this query at all."""
    return TWO_EDITS_LEN <= len(query_fold) <= MAX_LETTER_PAIR_LEN


def is_letter_pair_variant(query_fold: str, v: str) -> bool:
    """Exactly whether `v` is one of typo_candidates' letter-pair variants of the
    query (a letter deleted, then one wrong or one more letter), checked without
    spelling them: O(n) string comparisons per deleted letter."""
    q = query_fold
    n = len(q)
    if not letter_pairs_apply(q) or v == q or len(v) not in (n - 1, n):
        return False
    alphabet = _ALPHABET.union(q[1:])
    for i in range(1, n):
        d = q[:i] + q[i + 1 :]
        p = _common_prefix(v, d)
        if len(v) == n - 1:  # d with one letter replaced at 1..n-2 (or d itself)
            if p == n - 1 or (1 <= p <= n - 2 and v[p] in alphabet and v[p + 1 :] == d[p + 1 :]):
                return True
        elif p == n - 1:  # d and one more letter at its end
            if v[-1] in alphabet:
                return True
        # d with a letter inserted before d[p] (within a run of one letter, any
        # insertion point gives the same string: checking the first mismatch is enough)
        elif p >= 1 and v[p] in alphabet and v[p + 1 :] == d[p:]:
            return True
    return False


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _two_cheap_edits(q: str) -> set[str]:
    """Variants two letter-free edits away (after the first letter): two deletions,
    two swaps, a deletion and a swap, or one letter moved by two or more places."""
    one: set[str] = set()
    n = len(q)
    for i in range(1, n):
        one.add(q[:i] + q[i + 1 :])
        if i + 1 < n:
            one.add(q[:i] + q[i + 1] + q[i] + q[i + 2 :])
    out = set(one)
    for v in one:
        m = len(v)
        for i in range(1, m):
            out.add(v[:i] + v[i + 1 :])
            if i + 1 < m:
                out.add(v[:i] + v[i + 1] + v[i] + v[i + 2 :])
    for i in range(1, n):  # q[i] moved to position j
        rest = q[:i] + q[i + 1 :]
        for j in range(1, n):
            if abs(j - i) > 1:
                out.add(rest[:j] + q[i] + rest[j:])
    return out


__all__ = [
    "is_letter_pair_variant",
    "letter_pairs_apply",
    "one_edit",
    "typo_candidates",
    "typo_prefix_starts",
    "typo_prefixes",
]
