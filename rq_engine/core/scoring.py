"""The pure scorer: named features adding into a Score, plus the name matchers behind them.

`score(query, candidate)` is a function of its arguments only (no clock, no
git, no I/O), so `--explain`, the picker and MCP show exactly why a result
ranked where it did. Stdlib only; must not import sqlite3, the store or any
face. Every weight is in WEIGHTS (docs/scoring.md explains each).

Dynamic signals belong to the search layer, which owns the clock, the branch
state, the anchor and the repositories searched: it passes them in one `Boosts`
value per candidate (recency, the current repository, branch, enclosing and
proximity), and the feature functions here turn them into parts.
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.paths import TEST_DIRS, TS_DECLARATION_SUFFIXES, is_test_file_name
from rq_engine.core.query import JOINERS, Query, fold, split_scope
from rq_engine.core.record import Record
from rq_engine.core.score import Score

#: every weight the ranking uses, in one place (docs/scoring.md has the why of each)
WEIGHTS: dict[str, float] = {
    # match quality bands: exact > prefix > camel-hump abbreviation > subsequence
    # (bands wide enough that no other feature reorders them: see docs/scoring.md)
    "exact": 2000.0,
    "prefix": 1400.0,  # + up to `completion` for the share of the name typed
    "completion": 100.0,
    "abbrev": 900.0,
    "subseq": 700.0,
    "typo": 700.0,
    "alignment": 120.0,  # fuzzy: scaled by how word-aligned/contiguous the letters are
    "coverage": 200.0,  # fuzzy: scaled by the share of the name the query accounts for
    "late_start": -60.0,  # fuzzy: the match skips the name's first word
    "typo_edit": -40.0,  # per edit of a near miss
    "separators": -50.0,  # exact/prefix only with joiners left out or added (D19)
    "wildcard": -50.0,  # `a.b` matched with `.` as any one character (no scope answered)
    "via_package": -40.0,  # the query's head named the package (`bufscanner` → bufio.Scanner)
    "case": 60.0,  # query with uppercase, candidate spelled the same
    "constructor_owner": -500.0,  # `Foo.new` answered by Foo itself: 0.75 of exact
    # qualifier (scoped queries)
    "scope": 150.0,  # parent chain ends with the query's scope chain
    "scope_suffix": 90.0,  # parent name ends with the scope (`BaseManager` for `Manager`)
    "scope_path": 90.0,  # the scope names the file's package/module (`strings.Split`)
    "scope_file": 50.0,  # the scope is defined in the same file (inherited member)
    "scope_typo": 40.0,  # the scope matches within two edits
    "scope_unmatched": -150.0,  # nothing answered the scope; leaf-only fallback
    "kind_word": 40.0,  # the query named this kind (`struct file`, `class Foo`)
    # visibility: a tiebreaker, never a filter
    "private": -10.0,
    # path features
    "path_name": 20.0,  # file or directory named like the symbol
    "path_test": -60.0,  # a definition under tests/ or in a test file
    "path_generated": -120.0,  # dist/, build/, *.d.ts, vendored copies
    "path_parent": 5.0,  # a member in its type's own file (`TagHelper#content_tag` in tag_helper.rb)
    "path_project": 15.0,  # the file is named after the project (effect's Effect.ts)
    "path_internal": -15.0,  # under an internal/ directory: implementation, not API
    "path_private": -15.0,  # in a module or package named with a leading underscore
    "nesting": -3.0,  # per enclosing level beyond the first (a class inside a function)
    "nesting_cap": -12.0,
    "path_depth": -2.0,  # per directory level, capped
    "path_depth_cap": -12.0,
    # context boosts (the search layer passes them in through `Boosts`)
    "recency": 5.0,  # a file touched now; halves every RECENCY_HALF_LIFE_DAYS (a tiebreak)
    "current_repo": 25.0,  # --all-repos: the repository searched from
    "branch": 50.0,  # a file the feature branch changed against its trunk
    "branch_dir": 15.0,  # a file beside one it changed (same directory)
    "enclosing": 60.0,  # --anchor: per scope level shared with the anchor's definition
    "enclosing_cap": 180.0,
    "proximity_file": 90.0,  # --anchor: in the anchor's own file
    "proximity_dir": 60.0,  # --anchor: in its directory; halves per directory step
}

#: proximity below this is not shown (four directory steps away: 60 / 16 = 3.75)
PROXIMITY_MIN = 5.0

#: recency halves every two weeks: a file touched a year ago earns nothing visible
RECENCY_HALF_LIFE_DAYS = 14.0

#: kind weight: what a navigating user most often means by a bare name
KIND_WEIGHTS: dict[str, float] = {
    "class": 30.0,
    "struct": 30.0,
    "interface": 32.0,  # an interface/trait names the concept its many implementations share
    "trait": 32.0,
    "enum": 28.0,
    "union": 25.0,
    "type": 25.0,
    "function": 30.0,
    "method": 20.0,
    "module": 15.0,
    "macro": 15.0,
    "constant": 20.0,  # TS/JS `export const f = …` is how many libraries define functions
    "field": 0.0,
    "variable": 0.0,
    "file": 0.0,
}

_JOINER_SET = frozenset(JOINERS)
_MAX_NAME = 128  # longer names are scored on their first 128 characters
#: a leaf whose folded form is longer matches no name in order (match_fuzzy aligns it
#: within a name's first _MAX_NAME characters) nor as a near miss: the pipeline skips
#: its fuzzy layers, whose work otherwise grows with the query's length
MAX_FUZZY_LEAF = _MAX_NAME
# The typo budget, one home for the typo layer's reads (search/keys, search/nearmiss,
# the pipeline) and for match_typo: no edit under MIN_TYPO_LEN letters (one edit of a
# 3-letter name is noise), one under TWO_EDITS_LEN, then _MAX_EDITS.
MIN_TYPO_LEN = 4
TWO_EDITS_LEN = 10
_MAX_EDITS = 2


def typo_edits(n: int) -> int:
    """The edits a near miss of an `n`-letter (folded) query may be off by."""
    return 0 if n < MIN_TYPO_LEN else 1 if n < TWO_EDITS_LEN else _MAX_EDITS


class Candidate(Record):
    """What the scorer may look at: one stored definition."""

    __slots__ = ("name", "kind", "visibility", "parent", "path", "language", "project")
    name: str
    kind: str
    visibility: str
    parent: str | None
    path: str
    language: str
    project: str  # the repository's short name (`effect` for github.com/Effect-TS/effect)

    def __init__(
        self,
        name: str,
        kind: str = "function",
        visibility: str = "unknown",
        parent: str | None = None,
        path: str = "",
        language: str = "",
        project: str = "",
    ) -> None:
        self.name = name
        self.kind = kind
        self.visibility = visibility
        self.parent = parent
        self.path = path
        self.language = language
        self.project = project


class Boosts(Record):
    """Context-dependent signals the search layer computes for one candidate.

    A new signal is a new field here, never a new parameter of `score()`; each
    becomes a named part of the breakdown. Facts, not points: the weights stay in
    WEIGHTS, so tuning one never touches the search layer.
    """

    __slots__ = ("age_days", "current_repo", "branch", "enclosing", "anchor_file", "anchor_steps")
    age_days: float | None  # days since the file was last modified or committed; None: unknown
    current_repo: bool  # in the repository searched from while others are searched too
    # "file": the branch changed this file; "dir": one beside it; "skipped": the branch's
    # files were not known in time (a slow git); "": trunk, no git, or untouched
    branch: str
    enclosing: int  # scope levels the parent shares with the anchor's definition (D18)
    anchor_file: bool  # in the anchor's own file
    anchor_steps: int | None  # directory steps from the anchor's directory; None: not its repo

    def __init__(
        self,
        age_days: float | None = None,
        current_repo: bool = False,
        branch: str = "",
        enclosing: int = 0,
        anchor_file: bool = False,
        anchor_steps: int | None = None,
    ) -> None:
        self.age_days = age_days
        self.current_repo = current_repo
        self.branch = branch
        self.enclosing = enclosing
        self.anchor_file = anchor_file
        self.anchor_steps = anchor_steps


class NameMatch(Record):
    """How a query leaf matched a name: class, quality parts, highlighted letters.

    `evidence` is the number of query letters the match earned credit for (word
    starts and contiguous runs after the first word start; D15), the measure a
    near miss must reach to join (D14).
    """

    __slots__ = ("kind", "parts", "positions", "evidence", "edits")
    kind: str  # exact | prefix | abbrev | subseq | typo
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


class Scored(Record):
    __slots__ = ("score", "match")
    score: Score
    match: NameMatch

    def __init__(self, score: Score, match: NameMatch) -> None:
        self.score = score
        self.match = match


# --------------------------------------------------------------------------- words


@lru_cache(maxsize=8192)
def word_starts(name: str) -> list[bool]:
    """Where words begin: after a joiner or symbol, at camel humps, at digit runs.

    `RefundProcessor` and `refund_processor` both start words at r and p;
    `HTTPServer` starts words at H and S; `$ZodObject` at Z and O.
    """
    n = len(name)
    out = [False] * n
    prev = ""
    for i, ch in enumerate(name):
        if ch.isalnum():
            if not prev or not prev.isalnum():
                out[i] = True
            elif ch.isupper() and (prev.islower() or prev.isdigit()):
                out[i] = True
            elif (
                ch.isupper() and prev.isupper() and i + 1 < n and name[i + 1].islower()
            ):  # the S of HTTPServer
                out[i] = True
            elif ch.isdigit() and not prev.isdigit():
                out[i] = True
        prev = ch
    return out


def tokens(name: str) -> list[str]:
    """The lower-cased words of a name (`RefundProcessor` → [refund, processor])."""
    starts = word_starts(name)
    words: list[str] = []
    cur = ""
    for ch, st in zip(name, starts, strict=True):
        if not ch.isalnum():
            if cur:
                words.append(cur)
            cur = ""
            continue
        if st and cur:
            words.append(cur)
            cur = ""
        cur += ch.lower()
    if cur:
        words.append(cur)
    return words


def initials(name: str) -> str:
    """First letters of the words: `HashWithIndifferentAccess` → `hwia`."""
    return "".join(t[0] for t in tokens(name))


#: the letters a consonant skeleton drops (core/namekeys' ASCII path reads them too)
VOWELS = "aeiouy"
_VOWELS = str.maketrans("", "", VOWELS)


def skeleton(text: str) -> str:
    """The consonant skeleton of a folded name, first letter kept: `migration` → `mgrtn`.

    Dropped-vowel queries and vowel typos (`ForiegnKey`) share it with their name.
    """
    f = fold(text)
    return f[:1] + f[1:].translate(_VOWELS) if f else ""


def could_match(name: str, query_fold: str) -> bool:
    """Necessary condition for an in-order match: the folded query is a subsequence
    of the folded name. Registered as a SQLite function to drop rows before decoding."""
    if not query_fold:
        return False
    low = name.lower()
    pos = 0
    for ch in query_fold:
        pos = low.find(ch, pos) + 1
        if pos == 0:
            return False
    return True


# --------------------------------------------------------------------------- matchers


@lru_cache(maxsize=8192)
def _fold_positions(name: str) -> tuple[str, list[int]]:
    """The folded name and, for each folded letter, its index in `name` (cached:
    the picker re-matches the same names on every keystroke; callers never mutate)."""
    name = name[:_MAX_NAME]
    if name.isascii() and not any(j in name for j in JOINERS):
        return name.lower(), list(range(len(name)))  # the common case, ~20x faster
    chars: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(name[:_MAX_NAME]):
        if ch in _JOINER_SET:
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
    nf, idx = _fold_positions(name)
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
    return None if r is None else (r[0], list(r[1]))


_VOWEL_SET = frozenset(VOWELS)


@lru_cache(maxsize=8192)
def _soft_starts(name: str) -> list[bool]:
    """Where a consonant skeleton enters a word that starts with vowels: its first
    consonant (`n` of `and`, `x` of `executor`), after the name's first word only
    (a skeleton keeps its first letter). Indexes the folded name; empty when the
    name has no such word (cached; callers never mutate)."""
    low, idx = _fold_positions(name)
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
    low, idx = _fold_positions(name)
    starts_all = word_starts(name)
    starts = [starts_all[i] for i in idx]
    # A query with uppercase says where its words start: its lower-case letters
    # do not claim camel humps (`Contxet` is not concurrentTxExecTest).
    typed = [ch for ch in leaf if ch not in _JOINER_SET]
    hump_ok: list[list[bool]] | None = None
    if any(ch.isupper() for ch in typed):
        # (two rows, shared: a lower-case letter's, and every other letter's)
        lower_row = [k == 0 or not name[i].isupper() for k, i in enumerate(idx)]
        any_row = [True] * len(low)
        hump_ok = [lower_row if ch.islower() else any_row for ch in typed]
    r = _align(q, low, starts, hump_ok, _soft_starts(name) or None)
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
    max_gain = 10.0 + 8.0 * (len(q) - 1)
    parts: list[tuple[str, float]] = [
        (cls, WEIGHTS[cls]),
        ("alignment", round(WEIGHTS["alignment"] * gain / max_gain, 1)),
        ("coverage", round(WEIGHTS["coverage"] * len(q) / max(len(low), 1), 1)),
    ]
    if pos[0] != 0:
        parts.append(("late_start", WEIGHTS["late_start"]))
    parts += _joiner_parts(leaf, name)
    return NameMatch(cls, tuple(parts), tuple(idx[k] for k in pos), evidence)


def _joiner_parts(leaf: str, name: str) -> list[tuple[str, float]]:
    """D19 for fuzzy and near-miss matches: a joiner the user typed that the name
    lacks costs what a left-out one costs an exact match (`belogns_to` prefers
    `belongs_to` to `BelongsTo`)."""
    typed = {ch for ch in leaf if ch in _JOINER_SET}
    if typed and not typed <= set(name):
        return [("separators", WEIGHTS["separators"])]
    return []


def _skipped_words(pos: list[int], starts: list[bool], low: str = "") -> int:
    """Words between the first and the last matched letter that no letter matched:
    `dtclass` in `do_test_trashcan_python_class` skips two. A word of vowels only
    (`a`, `I`, `io`) is no skip: a consonant skeleton has no letter for it."""
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
        missed = [
            w
            for w in missed
            if any(ch not in _VOWEL_SET for k, ch in enumerate(low) if word_of[k] == w)
        ]
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


def edit_distance(a: str, b: str, cap: int = _MAX_EDITS) -> int:
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
    low, idx = _fold_positions(name)
    if not low or (low[0] != q[0] and low[:2] != q[1::-1]):
        # a near miss keeps its first letter (`catchAll` is not `matchAll`), or
        # swaps it with the second (`ocntext`: the letters of Context, one swap)
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
    return NameMatch("typo", (*parts, *_joiner_parts(leaf, name)), pos, kept, edits=d)


def _kept_positions(q: str, low: str) -> list[int]:
    """Positions of `low` that a longest common subsequence with `q` keeps (highlighting)."""
    return [j for _, j in _kept_pairs(q, low)]


def _kept_pairs(q: str, low: str) -> list[tuple[int, int]]:
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


def match_name(leaf: str, name: str, *, typo: bool = True) -> NameMatch | None:
    """The best way `leaf` matches `name`: exact/prefix, else in-order fuzzy, else typo."""
    m = match_exact_prefix(leaf, name)
    if m is not None:
        return m
    m = match_fuzzy(leaf, name)
    if m is not None:
        return m
    return match_typo(leaf, name) if typo else None


# --------------------------------------------------------------------------- features


def case_feature(query: Query, name: str, match: NameMatch) -> list[tuple[str, float]]:
    """A query with any uppercase rewards the candidate spelled the same way."""
    if not query.has_upper:
        return []
    q = [ch for ch in query.leaf if ch not in _JOINER_SET]
    if match.kind == "typo":
        return [("case", WEIGHTS["case"])] if _typo_case(q, name) else []
    # letters only on both sides: a literal match's positions cover the name's `_`
    # too, which left every UPPER_SNAKE query without its case (`PAGE_SIZE` tied
    # with `page_size`, `LIST_HEAD` lost to `struct list_head`)
    got = [name[i] for i in match.positions if name[i] not in _JOINER_SET]
    if len(got) == len(q) and all(a == b for a, b in zip(q, got, strict=True)):
        return [("case", WEIGHTS["case"])]
    return []


def _typo_case(typed: list[str], name: str) -> bool:
    """Whether a near miss keeps the query's case: every letter it keeps (a longest
    common subsequence) is spelled alike, so `Conecrn` is the module `Concern`'s,
    not the method `concern`'s. With the first two letters swapped, Shift went
    with the first key typed: `Ocntext` reads as `Context`."""
    low, idx = _fold_positions(name)
    if not low or len(typed) < 2 or len("".join(typed).lower()) != len(typed):
        return False
    if low[0] != typed[0].lower():
        a, b = typed[0], typed[1]
        first = b.upper() if a.isupper() else b.lower()
        typed = [first, a.upper() if b.isupper() else a.lower(), *typed[2:]]
    pairs = _kept_pairs("".join(typed).lower(), low)
    return bool(pairs) and all(typed[i] == name[idx[j]] for i, j in pairs)


def kind_feature(kind: str) -> list[tuple[str, float]]:
    w = KIND_WEIGHTS.get(kind, 0.0)
    return [("kind", w)] if w else []


def kind_word_feature(query: Query, kind: str) -> list[tuple[str, float]]:
    """`struct file`: the struct over a function or variable of the same name."""
    if query.kind and query.kind == kind:
        return [("kind_word", WEIGHTS["kind_word"])]
    return []


def nesting_feature(levels: int) -> list[tuple[str, float]]:
    """Definitions nested deep inside others (a class local to a function, a test's
    helper class) are rarely where a bare name should land; a method is one level."""
    if levels <= 1:
        return []
    return [("nesting", max(WEIGHTS["nesting"] * (levels - 1), WEIGHTS["nesting_cap"]))]


def visibility_feature(visibility: str, name: str = "") -> list[tuple[str, float]]:
    """Private/protected: a small penalty, never a filter; unknown carries no signal.

    A name with a leading underscore is internal by the convention most languages
    share (C's `__kmalloc` beside `kmalloc`, TS's exported `_superRefine` beside
    `superRefine`, Python's `_foo`), whatever its plugin reports: the same
    penalty, once. Dunders (`__init__`) are no internals.
    """
    if visibility in ("private", "protected") or _underscored(name):
        return [("visibility", WEIGHTS["private"])]
    return []


def _underscored(name: str) -> bool:
    """A leading `_` on a name that is more than underscores, dunders excepted."""
    if name[:1] != "_" or not name.strip("_"):
        return False
    return not (name.startswith("__") and name.endswith("__"))


_GENERATED_DIRS = frozenset(
    {"dist", "build", "out", "vendor", "node_modules", "third_party", "_build", "target"}
)
_SOURCE_ROOTS = frozenset({"", "src", "lib", "package", "packages"})
_ENTRY_FILES = frozenset(
    {"__init__.py", "mod.rs", "lib.rs", "index.ts", "index.js", "index.tsx", "index.mjs"}
)


@lru_cache(maxsize=8192)
def path_features(
    path: str, name: str, project: str = "", parent_last: str = ""
) -> tuple[tuple[str, float], ...]:
    """Canonical definitions over copies: tests, generated/declaration files, depth, naming."""
    parts = path.split("/")
    dirs, base = parts[:-1], parts[-1]
    out: list[tuple[str, float]] = []
    lower_dirs = [d.lower() for d in dirs]
    if (
        any(d in _GENERATED_DIRS for d in lower_dirs)
        or base.endswith((*TS_DECLARATION_SUFFIXES, ".min.js"))
        or ".bundle." in base
    ):
        out.append(("path_generated", WEIGHTS["path_generated"]))
    elif any(d in TEST_DIRS for d in lower_dirs) or is_test_file_name(base):
        out.append(("path_test", WEIGHTS["path_test"]))
    stem = fold(base.split(".", 1)[0])
    nf = fold(name)
    if nf and (stem == nf or (dirs and fold(dirs[-1]) == nf)):
        out.append(("path_name", WEIGHTS["path_name"]))
    if parent_last and stem == fold(parent_last):
        out.append(("path_parent", WEIGHTS["path_parent"]))
    # the project's front door sits at a source root (package/src/Effect.ts), not
    # deep inside (django/template/backends/django.py)
    if project and stem == fold(project) and fold(dirs[-1] if dirs else "") in _SOURCE_ROOTS:
        out.append(("path_project", WEIGHTS["path_project"]))
    if "internal" in lower_dirs:
        out.append(("path_internal", WEIGHTS["path_internal"]))
    # a module or package named private (`_pydecimal.py`, `pip/_internal/`) holds
    # implementation, as an underscore-named definition does (dunders excepted)
    if any(p.startswith("_") and not p.startswith("__") for p in (*dirs, base)):
        out.append(("path_private", WEIGHTS["path_private"]))
    # a package's entry file speaks for the directory itself (collections.namedtuple)
    depth = len(dirs) - (1 if base in _ENTRY_FILES and dirs else 0)
    if depth:
        out.append(("path_depth", max(WEIGHTS["path_depth"] * depth, WEIGHTS["path_depth_cap"])))
    return tuple(out)


def scope_chain(parent: str | None) -> list[str]:
    """A stored parent (`Foo::Bar`, `a.b.C`, `Foo#bar`) as its components."""
    return list(_chain(parent)) if parent else []


@lru_cache(maxsize=8192)
def _chain(parent: str) -> tuple[str, ...]:
    return tuple(p for p in split_scope(parent)[0] if p)


@lru_cache(maxsize=8192)
def _path_segments(path: str) -> list[str]:
    """Folded directory names and file stem of a path (cached; never mutated)."""
    return [fold(s.split(".", 1)[0]) for s in path.split("/")]


@lru_cache(maxsize=64)
def _lower_scope(scope: tuple[str, ...]) -> list[str]:
    """The query's scope chain lower-cased, once per query rather than per candidate
    (a pasted `a.a.a…` chain has hundreds of parts; callers never mutate it)."""
    return [s.lower() for s in scope]


def qualifier_feature(
    scope: tuple[str, ...], parent: str | None, path: str, *, typo: bool = True
) -> list[tuple[str, float]] | None:
    """How the candidate answers a scoped query; None when it does not (it drops out).

    Levels, strongest first: the parent chain ends with the scope chain; the
    parent's last name ends with the scope (`BaseManager` for `Manager`); the
    scope names the file's package or module (`strings.Split`); the scope is
    within two edits (`scope_typo`). `scope_file` is decided by the pipeline,
    which knows where the scope is defined.
    """
    if not scope:
        return []
    want = _lower_scope(scope)
    chain = [c.lower() for c in scope_chain(parent)]
    if chain and len(chain) >= len(want) and chain[-len(want) :] == want:
        return [("scope", WEIGHTS["scope"])]
    if chain and len(want) == 1 and chain[-1].endswith(want[0]) and len(want[0]) >= 3:
        # closer to the whole name is closer to the named scope: BaseManager over
        # GenericRelatedObjectManager for `Manager`
        share = len(want[0]) / len(chain[-1])
        return [("scope_suffix", round(WEIGHTS["scope_suffix"] * (0.5 + 0.5 * share), 1))]
    if path:
        segs = _path_segments(path)
        # `http.Client.Do`: the head of the chain names the package, the rest the parent
        head, rest = want[0], want[1:]
        if rest and chain[-len(rest) :] == rest and fold(head) in segs[-4:]:
            return [("scope", WEIGHTS["scope"])]
        if fold(want[-1]) in segs[-3:]:
            return [("scope_path", WEIGHTS["scope_path"])]
    if typo and chain:
        # the whole chain within two edits, or (`http.Clinet.Do`) a package head
        # that names the path and the rest of the chain within two edits
        forms = [want]
        if len(want) >= 2 and path and fold(want[0]) in _path_segments(path)[-4:]:
            forms.append(want[1:])
        for form in forms:
            tail = chain[-len(form) :]
            if len(tail) != len(form) or not all(len(w) >= MIN_TYPO_LEN for w in form):
                continue
            d = sum(edit_distance(a, b) for a, b in zip(form, tail, strict=True))
            if d <= _MAX_EDITS:
                return [("scope_typo", WEIGHTS["scope_typo"])]
    return None


def score(
    query: Query,
    cand: Candidate,
    *,
    match: NameMatch | None = None,
    qualifier: list[tuple[str, float]] | None = None,
    extra: list[tuple[str, float]] | None = None,
    boosts: Boosts | None = None,
) -> Scored | None:
    """Score one candidate: the sum of every feature's parts. None if it cannot match.

    `match` may be passed when the caller already matched the name (the pipeline
    matches each distinct name once); `qualifier` likewise, when the pipeline
    decided the scope (fallbacks, `scope_file`). `extra` carries parts decided
    outside the candidate (constructor, scope fallback). `boosts` carries the
    context signals the search layer computed (recency, current repository,
    branch, enclosing, proximity).
    """
    if match is None:
        match = match_name(query.leaf, cand.name)
        if match is None:
            return None
    if qualifier is None:
        qualifier = qualifier_feature(query.scope, cand.parent, cand.path)
        if qualifier is None:
            return None
    parts: list[tuple[str, float]] = list(match.parts)
    parts += case_feature(query, cand.name, match)
    parts += kind_feature(cand.kind)
    parts += kind_word_feature(query, cand.kind)
    parts += visibility_feature(cand.visibility, cand.name)
    parts += qualifier
    chain = scope_chain(cand.parent)
    parts += nesting_feature(len(chain))
    parts += path_features(cand.path, cand.name, cand.project, chain[-1] if chain else "")
    if extra:
        parts += extra
    if boosts is not None:
        parts += boost_features(boosts)
    return Scored(Score.of(parts), match)


def boost_features(boosts: Boosts) -> list[tuple[str, float]]:
    """Every context boost's parts, in display order."""
    out = recency_feature(boosts.age_days)
    if boosts.current_repo:
        out.append(("current_repo", WEIGHTS["current_repo"]))
    out += branch_feature(boosts.branch)
    out += enclosing_feature(boosts.enclosing)
    out += proximity_feature(boosts.anchor_file, boosts.anchor_steps)
    return out


def recency_feature(age_days: float | None) -> list[tuple[str, float]]:
    """WEIGHTS × ½^(age / half-life), shown from 0.1."""
    if age_days is None:
        return []
    age = max(age_days, 0.0)  # a clock behind the file's is "now"
    v = round(WEIGHTS["recency"] * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS), 1)
    return [("recency", v)] if v > 0 else []


def branch_feature(branch: str) -> list[tuple[str, float]]:
    """A file the feature branch changed, or one beside it; `branch_skipped` (0) says
    the branch's files were not known in time, so no result got the boost."""
    if branch == "file":
        return [("branch", WEIGHTS["branch"])]
    if branch == "dir":
        return [("branch_dir", WEIGHTS["branch_dir"])]
    if branch == "skipped":
        return [("branch_skipped", 0.0)]
    return []


def enclosing_feature(levels: int) -> list[tuple[str, float]]:
    """60 per scope level the candidate's parent shares with the anchor's, at most 180."""
    if levels <= 0:
        return []
    return [("enclosing", min(WEIGHTS["enclosing"] * levels, WEIGHTS["enclosing_cap"]))]


def proximity_feature(same_file: bool, steps: int | None) -> list[tuple[str, float]]:
    """90 in the anchor's file; else 60 in its directory, halving per directory step,
    dropped below PROXIMITY_MIN."""
    if same_file:
        return [("proximity", WEIGHTS["proximity_file"])]
    if steps is None:
        return []
    v = WEIGHTS["proximity_dir"] / 2**steps
    return [("proximity", round(v, 1))] if v >= PROXIMITY_MIN else []


def shared_scope(parent: str | None, chain: tuple[str, ...]) -> int:
    """How many levels of `chain` (the anchor's scope) the candidate's parent is: its
    whole parent chain must be a leading run of it (`A` in `A.foo`: 1; `B`: 0)."""
    mine = scope_chain(parent)
    if not mine or len(mine) > len(chain):
        return 0
    return len(mine) if tuple(mine) == chain[: len(mine)] else 0


def dir_steps(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """Directory steps between two directories given as their components: up from `a`
    to the deepest common one, then down to `b`."""
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return len(a) - common + len(b) - common
