"""Retrieval keys: the deletion neighbourhood and the stored/query key agreement."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.search.keys import deletions, name_keys, query_typo_keys, typo_keys


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
