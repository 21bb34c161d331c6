"""Retrieval keys: the deletion neighbourhood and the stored/query key agreement."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.search.keys import (
    deletions,
    name_keys,
    name_record,
    query_typo_keys,
    typo_keys,
    typo_keys_json,
)


def _reference(text: str, depth: int) -> set[str]:
    out = {text}
    for k in range(1, min(depth, len(text) - 1) + 1):
        for drop in combinations(range(len(text)), k):
            out.add("".join(c for i, c in enumerate(text) if i not in drop))
    return out


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abcde", min_size=1, max_size=9), depth=st.sampled_from([1, 2]))
def test_deletions_match_the_combinatorial_definition(text: str, depth: int) -> None:
    assert deletions(text, depth) == _reference(text, depth)


def test_one_edit_typos_share_a_key_with_their_name() -> None:
    for typo, name in [
        ("httprepsonse", "HttpResponse"),  # swap
        ("behavioursubject", "BehaviorSubject"),  # insertion
        ("semphore", "Semaphore"),  # deletion
        ("vaildates", "validates"),  # swap
        ("joinhanlde", "JoinHandle"),
    ]:
        assert query_typo_keys(typo) & typo_keys(name_keys(name)[0]), (typo, name)


def test_unrelated_names_share_no_key() -> None:
    assert not query_typo_keys("semaphore") & typo_keys("listener")


_IDENT = st.text(alphabet="aAbBzZ019_$.-xXyY", min_size=0, max_size=24)


@settings(max_examples=500, deadline=None)
@given(name=_IDENT | st.text(max_size=12))
def test_fast_name_keys_equal_the_scorer_definitions(name: str) -> None:
    """The ASCII fast path (one regex for word starts, fold computed once) must key a
    name exactly as scoring.initials/skeleton and query.fold do: the reader computes
    query keys with those."""
    from rq_engine.core.query import fold
    from rq_engine.core.scoring import initials, skeleton

    assert name_keys(name) == (fold(name), skeleton(name), initials(name))


@settings(max_examples=300, deadline=None)
@given(folded=st.text(alphabet="abcxyz019$", max_size=50) | st.text(max_size=12))
def test_fast_typo_keys_equal_the_deletion_definition(folded: str) -> None:
    import zlib

    want: set[int] = set()
    if len(folded) >= 4:
        want = {zlib.crc32(s.encode("utf-8")) for s in deletions(folded[:40], 1)}
    assert typo_keys(folded) == want


def test_a_name_record_carries_every_key() -> None:
    import json

    name, folded, skel, ini, dels = name_record("HTTPServerError")
    assert (name, folded, skel, ini) == ("HTTPServerError", "httpservererror", "httpsrvrrrr", "hse")
    assert set(json.loads(dels)) == typo_keys(folded)
    assert name_record("ab")[4] == "[]"


@settings(max_examples=300, deadline=None)
@given(folded=st.text(alphabet="aabbc019$", max_size=50) | st.text(max_size=12))
def test_typo_keys_json_holds_the_same_keys(folded: str) -> None:
    import json

    assert set(json.loads(typo_keys_json(folded))) == typo_keys(folded)
