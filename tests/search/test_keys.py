"""Retrieval keys: a name's fold/skeleton/initials, and a query's typo candidates
against the scorer's edit budget (docs/scoring.md: one edit under ten letters, two
from ten; a swap is one edit). The edit count here is the test's own
optimal-string-alignment distance, not the scorer's."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.core.namekeys import name_keys, name_record
from rq_engine.core.query import fold, parse
from rq_engine.core.scoring import Candidate, score
from rq_engine.core.scoring.typos import edit_distance as scorer_distance
from rq_engine.search.keys import is_letter_pair_variant, typo_candidates, typo_prefix_starts


def edit_distance(a: str, b: str, cap: int) -> int:
    """Optimal string alignment distance (insert, delete, substitute, swap two
    neighbours), capped at cap + 1: the textbook recurrence."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return min(d[len(a)][len(b)], cap + 1)


@settings(max_examples=400, deadline=None)
@given(
    a=st.text(alphabet="abc", max_size=9),
    b=st.text(alphabet="abc", max_size=9),
    head=st.text(alphabet="abc", max_size=4),
    tail=st.text(alphabet="abc", max_size=4),
    cap=st.integers(0, 3),
)
def test_the_scorers_edit_distance_is_the_textbook_one(
    a: str, b: str, head: str, tail: str, cap: int
) -> None:
    # (the scorer skips what both share at either end and computes a band of the
    # table: neither may change a distance within the cap)
    x, y = head + a + tail, head + b + tail
    assert scorer_distance(x, y, cap) == edit_distance(x, y, cap), (x, y, cap)


def _one_edit(q: str, alphabet: str) -> set[str]:
    """Every string one OSA edit from `q` (by brute force), first letter kept."""
    out: set[str] = set()
    for n in range(len(q) - 1, len(q) + 2):
        for letters in product(alphabet, repeat=n - 1):
            cand = q[0] + "".join(letters)
            if cand != q and edit_distance(q, cand, 1) == 1:
                out.add(cand)
    return out


@settings(max_examples=60, deadline=None)
@given(q=st.text(alphabet="abc", min_size=4, max_size=6))
def test_every_one_edit_near_miss_is_a_candidate(q: str) -> None:
    assert _one_edit(q, "abc") <= typo_candidates(q)


@settings(max_examples=60, deadline=None)
@given(q=st.text(alphabet="abcxyz09$", min_size=0, max_size=14))
def test_every_candidate_is_within_the_scorers_budget(q: str) -> None:
    allowed = 1 if len(q) < 10 else 2
    # A swap composed after a deletion can touch a letter twice: two edits, but
    # three by the scorer's optimal-string-alignment count (the scorer drops it).
    slack = 0 if allowed == 1 else 1
    cands = sorted(typo_candidates(q))
    for cand in cands[:: 1 + len(cands) // 1500]:  # a spread of at most ~1,500 a query
        assert cand[0] == q[0] or cand[:2] == q[1::-1]  # kept, or swapped with the second
        assert 1 <= edit_distance(q, cand, allowed + slack) <= allowed + slack, (q, cand)


def test_a_typo_in_an_unfinished_name_has_a_start_of_the_name() -> None:
    for typo, name in [
        ("HttpRepson", "HttpResponse"),  # swap
        ("BehaviourSub", "BehaviorSubject"),  # a letter too many
        ("Semphor", "Semaphore"),  # a letter left out
        ("ForeignKye", "ForeignKeyDescriptor"),  # swap at the end of what was typed
        ("Contxe", "Context"),
        ("ocntex", "Context"),  # the first two letters swapped
    ]:
        f = fold(name)
        starts = typo_prefix_starts(fold(typo))
        assert any(f.startswith(s) and len(f) > len(s) for s in starts), (typo, name)
    assert fold("HttpRepson") not in typo_prefix_starts(fold("HttpRepson"))
    assert typo_prefix_starts("abc") == set()  # under four letters: no near miss


def test_the_judged_typos_are_candidates_and_the_scorer_takes_them() -> None:
    for typo, name in [
        ("HttpRepsonse", "HttpResponse"),  # swap
        ("BehaviourSubject", "BehaviorSubject"),  # a letter too many
        ("Semphore", "Semaphore"),  # a letter left out
        ("vaildates", "validates"),  # swap
        ("ForiegnKey", "ForeignKey"),
        ("selcet_related", "select_related"),
        ("combineLastest", "combineLatest"),
        ("ValidatoinErorr", "ValidationError"),  # two swaps (15 letters)
        ("ValidationErrror", "ValidationError"),
    ]:
        assert fold(name) in typo_candidates(fold(typo)), (typo, name)
        scored = score(parse(typo), Candidate(name))
        assert scored is not None, (typo, name)  # the hit is kept, however it matched


def test_an_extra_letter_and_one_more_are_candidates_up_to_14_letters() -> None:
    assert "validationerro" in typo_candidates("valifdationero")  # extra f, missing r
    assert "getquerysets" in typo_candidates("getquerzsetsx")  # wrong z, extra x
    assert "selectrelated" in typo_candidates("sekectrelatedd")  # wrong k, extra d
    # what keeps a typo retry within a few ms: at most ~10k probes, and past 14
    # letters only the letter-free two-edit variants (D28)
    assert len(typo_candidates("getquerzsetsx")) < 12_000
    assert len(typo_candidates("serialiseresponsee")) < 3_000


_EDITS = st.lists(
    st.tuples(st.sampled_from("dis"), st.integers(0, 15), st.sampled_from("aesz9")),
    min_size=1,
    max_size=3,
)


def _edited(q: str, edits: list[tuple[str, int, str]]) -> str:
    v = list(q)
    for op, at, c in edits:
        at %= len(v) + (op == "i")
        if op == "d" and len(v) > 1:
            del v[at % len(v)]
        elif op == "i":
            v.insert(at, c)
        else:
            v[at % len(v)] = c
    return "".join(v)


@settings(max_examples=300, deadline=None)
@given(q=st.text(alphabet="aelrst", min_size=10, max_size=14), edits=_EDITS)
def test_the_letter_pairs_a_reader_checks_instead_of_spelling(
    q: str, edits: list[tuple[str, int, str]]
) -> None:
    """A reader may spell the candidates with `keep` and check the names that start
    like the query with is_letter_pair_variant: together, exactly the full set."""
    v = _edited(q, edits)
    full = v in typo_candidates(q)
    split = v in typo_candidates(q, keep=3) or (v[:3] == q[:3] and is_letter_pair_variant(q, v))
    assert full == split, (q, v)


def test_two_letter_free_edits_are_candidates_for_long_queries() -> None:
    assert "validationerror" in typo_candidates("vlaidationerrro")  # two swaps
    assert "validationerror" in typo_candidates("validationxxerror")  # two letters too many
    assert "validationerror" in typo_candidates("vlidationaerror")  # a letter moved
    assert "validationerror" not in typo_candidates("vlidationerror"[:9])  # short: one edit


def test_short_long_and_unrelated_queries() -> None:
    assert typo_candidates("sel") == set()  # under four letters: no typo retry
    assert typo_candidates("x" * 65) == set()  # pasted, not typed
    assert "listener" not in typo_candidates("semaphore")
    assert "select" in typo_candidates("sleect") and "elect" not in typo_candidates("sleect")


_IDENT = st.text(alphabet="aAbBzZ019_$.-xXyY", min_size=0, max_size=24)


@settings(max_examples=500, deadline=None)
@given(name=_IDENT | st.text(max_size=12))
def test_fast_name_keys_equal_the_scorer_definitions(name: str) -> None:
    """The ASCII fast path (one regex for word starts, fold computed once) must key a
    name exactly as scoring.initials/skeleton and query.fold do: the reader computes
    query keys with those."""
    from rq_engine.core.scoring import initials, skeleton

    assert name_keys(name) == (fold(name), skeleton(name), initials(name))


def test_a_name_record_carries_every_key() -> None:
    assert name_record("HTTPServerError") == (
        "HTTPServerError",
        "httpservererror",
        "httpsrvrrrr",
        "hse",
    )
