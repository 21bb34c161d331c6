"""Matching a query leaf against a name: the exact/prefix and in-order (abbreviation,
subsequence) matchers. The near-miss matchers and the edit distance behind them
are typos.py's; a name's words, skeleton and initials words.py's. Stdlib only
(the `rq -q` hot path).
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.query import JOINERS, fold
from rq_engine.core.record import Record
from rq_engine.core.scoring.weights import WEIGHTS, WHOLE_NAME_MIN
from rq_engine.core.scoring.words import FILLER_WORDS, VOWELS, could_match, skeleton, word_starts

JOINER_SET = frozenset(JOINERS)
_MAX_NAME = 128  # longer names are scored on their first 128 characters
#: a leaf whose folded form is longer matches no name in order (match_fuzzy aligns it
#: within a name's first _MAX_NAME characters) nor as a near miss: the pipeline skips
#: its fuzzy layers, whose work otherwise grows with the query's length
MAX_FUZZY_LEAF = _MAX_NAME


#: the classes of an in-order match (match_fuzzy's), whose evidence a near miss must
#: reach to join (D14)
IN_ORDER = frozenset(("abbrev", "skeleton", "subseq"))


class NameMatch(Record):
    """How a query leaf matched a name: class, quality parts, highlighted letters.

    `evidence` is the number of query letters the match earned credit for (word
    starts and contiguous runs after the first word start; D15), the measure a
    near miss must reach to join (D14).
    """

    __slots__ = ("kind", "parts", "positions", "evidence", "edits")
    kind: str  # exact | prefix | abbrev | skeleton | subseq | typo
    parts: tuple[tuple[str, float], ...]
    positions: tuple[int, ...]
    evidence: int
    edits: int

    def __init__(
        self,
        kind: str,
        parts: tuple[tuple[str, float], ...],
        positions: tuple[int, ...],
        evidence: int,
        edits: int = 0,
    ) -> None:
        self.kind = kind
        self.parts = parts
        self.positions = positions
        self.evidence = evidence
        self.edits = edits


# --------------------------------------------------------------------------- matchers


@lru_cache(maxsize=8192)
def fold_positions(name: str) -> tuple[str, list[int]]:
    """The folded name and, for each folded letter, its index in `name` (cached:
    the picker re-matches the same names on every keystroke; callers never mutate)."""
    name = name[:_MAX_NAME]
    if name.isascii() and not any(j in name for j in JOINERS):
        return name.lower(), list(range(len(name)))  # the common case, ~20x faster
    chars: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(name[:_MAX_NAME]):
        if ch in JOINER_SET:
            continue
        chars.append(ch.lower())
        idx.append(i)
    return "".join(chars), idx


def match_exact_prefix(leaf: str, name: str) -> NameMatch | None:
    """Exact or prefix, literally or with joiners left out/added (50 behind, D19).

    Only `_ - .` may differ: `save` is a prefix of `save!`, not an exact match.
    """
    ql, nl = leaf.lower(), name.lower()
    if ql == nl:
        return NameMatch("exact", (("exact", WEIGHTS["exact"]),), tuple(range(len(name))), len(ql))
    qf = fold(leaf)
    nf, idx = fold_positions(name)
    if qf and qf == nf:
        return NameMatch(
            "exact",
            (("exact", WEIGHTS["exact"]), ("separators", WEIGHTS["separators"])),
            tuple(idx),
            len(qf),
        )
    if nl.startswith(ql) and ql:
        return NameMatch(
            "prefix",
            (("prefix", WEIGHTS["prefix"]), ("completion", _completion(len(ql), len(nl)))),
            tuple(range(len(ql))),
            len(ql),
        )
    if qf and nf.startswith(qf):
        return NameMatch(
            "prefix",
            (
                ("prefix", WEIGHTS["prefix"]),
                ("completion", _completion(len(qf), len(nf))),
                ("separators", WEIGHTS["separators"]),
            ),
            tuple(idx[: len(qf)]),
            len(qf),
        )
    return None


def _completion(typed: int, total: int) -> float:
    return round(WEIGHTS["completion"] * typed / max(total, 1), 1)


def _align(
    q: str,
    low: str,
    starts: list[bool],
    hump_ok: list[list[bool]] | None = None,
    soft: list[bool] | None = None,
    after_joiner: list[bool] | None = None,
) -> tuple[float, list[int]] | None:
    """Best in-order alignment of `q` in `low` (both folded): (gain, positions).

    Gains per letter: 10 at a word start, 8 continuing a run begun at a word
    start, 4 continuing a run begun mid-word, 2 scattered; 0 for any letter
    matched before the alignment reaches its first word start (D15). After
    that, a letter that is neither a word start nor next to the previous one
    must lie in the same word as it: `APIView` does not match
    `AboutTemplateAttributeView` through the p of Template. The one way into a
    word past its start is `soft`: the first consonant of a word that starts
    with vowels, as a consonant skeleton spells it (`lstnndsrv`: the n of And),
    at 4 like a run begun mid-word. Memoised search over (query index, last
    position, credited?), trying at each step the contiguous letter, the next
    word-start occurrence, the first occurrence and the next soft start:
    O(len(q) × len(low)) states at most.

    `after_joiner[i]`: the user typed a joiner before letter i (`pre_sut`), so it
    starts a word: it may only land on a word start (or a soft start), never
    inside a word (pre_shutdown's s, not poll_result's).
    """
    m, n = len(q), len(low)
    # state: 0 = no word start reached yet, 1 = in a run begun at a word start,
    # 2 = in a run begun mid-word
    memo: dict[tuple[int, int, int], tuple[float, tuple[int, ...]] | None] = {}
    word_of: list[int] = []
    w = 0
    for st0 in starts:
        w += st0
        word_of.append(w)

    def best(i: int, p: int, st: int) -> tuple[float, tuple[int, ...]] | None:
        if i == m:
            return 0.0, ()
        key = (i, p, st)
        if key in memo:
            return memo[key]
        ch = q[i]
        opts: list[int] = []
        if p + 1 < n and low[p + 1] == ch:
            opts.append(p + 1)
        k = low.find(ch, p + 1)
        if k >= 0 and k not in opts:
            opts.append(k)
        while k >= 0 and not starts[k]:
            k = low.find(ch, k + 1)
        if k >= 0 and k not in opts:
            opts.append(k)
        if st and soft:
            # the first consonant of a later word that starts with vowels
            k = low.find(ch, p + 1)
            while k >= 0 and not soft[k]:
                k = low.find(ch, k + 1)
            if k >= 0 and k not in opts:
                opts.append(k)
        out: tuple[float, tuple[int, ...]] | None = None
        for k in opts:
            if m - i - 1 > n - k - 1:
                continue
            if after_joiner is not None and after_joiner[i] and not starts[k]:
                if not soft or not soft[k]:
                    continue
            if starts[k] and (hump_ok is None or hump_ok[i][k]):
                gain, nst = 10.0, 1
            elif st == 0:
                gain, nst = 0.0, 0
            elif k == p + 1:
                gain, nst = (8.0 if st == 1 else 4.0), st
            elif word_of[k] != word_of[p]:
                if not soft or not soft[k]:
                    continue  # an orphan: a letter inside a word whose start was skipped
                # a consonant skeleton drops a word's leading vowels: `lstnndsrv`
                # enters ListenAndServe's `And` at its n (a run begun mid-word)
                gain, nst = 4.0, 2
            else:
                gain, nst = 2.0, 2
            rest = best(i + 1, k, nst)
            if rest is None:
                continue
            total = gain + rest[0]
            if out is None or total > out[0]:
                out = (total, (k, *rest[1]))
        memo[key] = out
        return out

    r = best(0, -1, 0)
    if r is None:
        # Only then from a later word that starts with the query's first letter
        # (`readwrlock` in ReentrantReadWriteLock: the search above enters at the
        # first word-start r only). Never in place of an alignment from the name's
        # start, which would trade it for `late_start`.
        k = low.find(q[0], 1)
        while k >= 0:
            if starts[k] and (hump_ok is None or hump_ok[0][k]) and m - 1 <= n - k - 1:
                rest = best(1, k, 1)
                if rest is not None and (r is None or 10.0 + rest[0] > r[0]):
                    r = (10.0 + rest[0], (k, *rest[1]))
            k = low.find(q[0], k + 1)
    return None if r is None else (r[0], list(r[1]))


_VOWEL_SET = frozenset(VOWELS)
#: the shortest query taken for a whole skeleton: `ct` is `cat`'s, but two or three
#: letters are more often initials (CancelToken)
SKELETON_MIN = 4


@lru_cache(maxsize=8192)
def _soft_starts(name: str) -> list[bool]:
    """Where a consonant skeleton enters a word that starts with vowels: its first
    consonant (`n` of `and`, `x` of `executor`), after the name's first word only
    (a skeleton keeps its first letter). Indexes the folded name; empty when the
    name has no such word (cached; callers never mutate)."""
    low, idx = fold_positions(name)
    starts_all = word_starts(name)
    starts = [starts_all[i] for i in idx]
    out: list[bool] = []
    for j in range(1, len(low)):
        if not starts[j] or low[j] not in _VOWEL_SET:
            continue
        k = j
        while k < len(low) and not (k > j and starts[k]) and low[k] in _VOWEL_SET:
            k += 1
        if k < len(low) and not starts[k] and low[k].isalnum():
            if not out:
                out = [False] * len(low)
            out[k] = True
    return out


def match_fuzzy(leaf: str, name: str) -> NameMatch | None:
    """Camel-hump abbreviation (every run starts a word) or subsequence, in order."""
    q = fold(leaf)
    if len(q) < 2 or not could_match(name, q):
        return None
    low, idx = fold_positions(name)
    starts_all = word_starts(name)
    starts = [starts_all[i] for i in idx]
    # A query with uppercase says where its words start: its lower-case letters
    # do not claim camel humps (`Contxet` is not concurrentTxExecTest).
    typed = [ch for ch in leaf if ch not in JOINER_SET]
    hump_ok: list[list[bool]] | None = None
    if any(ch.isupper() for ch in typed):
        # (two rows, shared: a lower-case letter's, and every other letter's)
        lower_row = [k == 0 or not name[i].isupper() for k, i in enumerate(idx)]
        any_row = [True] * len(low)
        hump_ok = [lower_row if ch.islower() else any_row for ch in typed]
    r = _align(q, low, starts, hump_ok, _soft_starts(name) or None, _after_joiner(leaf, len(q)))
    if r is None:
        return None
    gain, pos = r
    if gain <= 0:
        return None
    if _skipped_words(pos, starts, low):
        return None  # `ParseJSON` is not ParseGodepsJSON: a match may not skip a word
    eff = [starts[k] and (hump_ok is None or hump_ok[j][k]) for j, k in enumerate(pos)]
    evidence, abbrev = _runs(pos, eff)
    cls = "abbrev" if abbrev else "subseq"
    if not abbrev and len(q) >= SKELETON_MIN and _is_skeleton(q, name, low, starts):
        # The name's whole consonant skeleton (`schdl` → schedule, `uslp` → usleep):
        # the other way a name is abbreviated, its vowels dropped. As a subsequence it
        # lost to any name whose word starts the letters happen to hit (sched_dl_entity).
        # A word that starts with a vowel may keep it, as its first letter (`prsint` →
        # parseInt, `adurl` → audio_url): the print one slip away took parseInt's place.
        cls = "skeleton"
    # The whole name with a letter left out (`validats`, `contexmanager`) is a near
    # miss of it, ranked as match_typo ranks one: in the abbreviation band, every
    # letter typed kept. As a subsequence it lost to any longer name the letters
    # happen to abbreviate (validates_size_of, _ContextManager). An abbreviation
    # keeps its own scoring (leaving letters out is what one does).
    whole = (
        cls == "subseq"
        and pos[0] == 0
        and sum(ch.isalnum() for ch in low) - len(q) == 1  # (`dir/Name` has a `/`)
        and len(q) >= WHOLE_NAME_MIN
        and not ends_with_joiner(leaf)
    )
    max_gain = 10.0 + 8.0 * (len(q) - 1)
    parts: list[tuple[str, float]] = [
        (cls, WEIGHTS[cls]),
        *([("whole_name", WEIGHTS["whole_name"])] if whole else ()),
        (
            "alignment",
            WEIGHTS["alignment"] if whole else round(WEIGHTS["alignment"] * gain / max_gain, 1),
        ),
        ("coverage", round(WEIGHTS["coverage"] * len(q) / max(len(low), 1), 1)),
    ]
    if cls == "abbrev" and all(eff) and len(pos) == sum(starts) >= 2:
        # One letter a word, every word: the name's acronym (`npe` → NullPointerException,
        # `kcc` → kmem_cache_create). Coverage counts letters, so a shorter name the
        # letters also abbreviate (NetPermission: n, p, then pErmission's e) took it.
        parts.append(("initials", WEIGHTS["initials"]))
    if pos[0] != 0:
        parts.append(("late_start", WEIGHTS["late_start"]))
    parts += joiner_parts(leaf, name)
    return NameMatch(cls, tuple(parts), tuple(idx[k] for k in pos), evidence)


def _is_skeleton(q: str, name: str, low: str, starts: list[bool]) -> bool:
    """`q` is the name's consonant skeleton, or each word's first letter and its
    consonants (`parseInt` → `prsint`: a word's leading vowel kept). `low` is the
    folded name, `starts` its word starts."""
    skel = skeleton(name)
    if q == skel:
        return True
    # (keeping vowels only makes it longer; the kept vowels are not letters toward
    # SKELETON_MIN: `mnag` is Manager's near miss, not min_age's m-n-ag)
    return len(q) > len(skel) >= SKELETON_MIN and q == "".join(
        c for j, c in enumerate(low) if j == 0 or starts[j] or c not in _VOWEL_SET
    )


def ends_with_joiner(leaf: str) -> bool:
    """The query ends in `_ - .`: it says another word follows, so it is not a whole
    name with a slip (`hanler_` is handler_for's start, not handler's near miss)."""
    return bool(leaf) and leaf[-1] in JOINER_SET


def _after_joiner(leaf: str, n: int) -> list[bool] | None:
    """Per folded letter of `leaf` (n of them): whether a joiner was typed right before
    it, past the first letter. None when no joiner was typed, or the folding changed
    the letters' count (a character whose lower case is two)."""
    out: list[bool] = []
    joined = False
    for ch in leaf:
        if ch in JOINER_SET:
            joined = bool(out)
            continue
        out.append(joined)
        joined = False
    if not any(out) or len(out) != n:
        return None
    return out


def joiner_parts(leaf: str, name: str) -> list[tuple[str, float]]:
    """D19 for fuzzy and near-miss matches: a joiner the user typed that the name
    lacks costs what a left-out one costs an exact match (`belogns_to` prefers
    `belongs_to` to `BelongsTo`)."""
    typed = {ch for ch in leaf if ch in JOINER_SET}
    if typed and not typed <= set(name):
        return [("separators", WEIGHTS["separators"])]
    return []


def _skipped_words(pos: list[int], starts: list[bool], low: str = "") -> int:
    """Words between the first and the last matched letter that no letter matched:
    `dtclass` in `do_test_trashcan_python_class` skips two. A word of vowels only
    (`a`, `I`, `io`) is no skip: a consonant skeleton has no letter for it; nor is
    a little joining word (`to` in `render_to_string`, words.FILLER_WORDS), which
    people leave out when they abbreviate."""
    hit: set[int] = set()
    word = -1
    word_of: list[int] = []
    for st in starts:
        word += st
        word_of.append(word)
    for k in pos:
        hit.add(word_of[k])
    missed = [w for w in range(word_of[pos[0]], word_of[pos[-1]] + 1) if w not in hit]
    if missed and low:
        text = {w: "".join(ch for k, ch in enumerate(low) if word_of[k] == w) for w in missed}
        missed = [w for w in missed if not (set(text[w]) <= _VOWEL_SET or text[w] in FILLER_WORDS)]
    return len(missed)


def _runs(pos: list[int], at_start: list[bool]) -> tuple[int, bool]:
    """(evidence, abbreviation?) of an alignment; `at_start[j]`: letter j claimed a word start.

    A run is a stretch of consecutive matched letters. Evidence counts the
    letters of runs that begin at a word start; scattered mid-word letters earn
    none. The match is a camel-hump abbreviation when every run begins at one.
    """
    evidence = 0
    every = True
    run_ok = False
    for j, k in enumerate(pos):
        if j == 0 or k != pos[j - 1] + 1:
            run_ok = at_start[j]
            every = every and run_ok
        if run_ok:
            evidence += 1
    return evidence, every
