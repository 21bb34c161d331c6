"""The scorer's own contract: `score(query, candidate)` is a pure function adding named
features into a Score whose total is the sum of its parts, and `match_name` marks
the letters it matched. Only the scorer's public entry points are called here;
how definitions rank through the search API is tests/search/test_ranking.py.
The cases below are ones a search cannot reach (retrieval never fetches the
candidate), so they are checked on the scorer itself.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.core.query import parse
from rq_engine.core.scoring import (
    KIND_WEIGHTS,
    WEIGHTS,
    Boosts,
    Candidate,
    ceiling,
    match_name,
    match_typo_prefix,
    score,
)


def parts(q: str, name: str) -> dict[str, float]:
    s = score(parse(q), Candidate(name))
    assert s is not None, (q, name)
    return dict(s.score.parts)


def total(q: str, name: str) -> float:
    return sum(parts(q, name).values())


def test_letters_before_the_first_word_start_earn_nothing() -> None:
    # D15: in `xview` only View is matched at a word start; `cview` also claims Context
    assert total("cview", "ContextView") > total("xview", "ContextView")


def test_late_start_penalised() -> None:
    assert parts("ctxmgr", "AbstractContextManager")["late_start"] == WEIGHTS["late_start"]


def test_typo_matches_up_to_two_edits_scored_by_kept_letters() -> None:
    one = parts("HttpRepsonse", "HttpResponse")
    two = parts("HtpRepsonse", "HttpResponse")
    assert one["typo_edit"] == WEIGHTS["typo_edit"] and two["typo_edit"] == 2 * WEIGHTS["typo_edit"]
    assert sum(one.values()) > sum(two.values())
    assert score(parse("HtRepsonsx"), Candidate("HttpResponse")) is None  # three edits


def test_a_near_miss_of_a_start_is_one_edit_short_of_the_name() -> None:
    m = match_typo_prefix("ForiegnK", "ForeignKey")
    assert m is not None and m.kind == "typo" and m.edits == 1
    part = dict(m.parts)
    assert (
        part["typo_prefix"] == WEIGHTS["typo_prefix"] and part["typo_edit"] == WEIGHTS["typo_edit"]
    )
    # the coverage of a longer name is less: a shorter completion ranks first
    longer = match_typo_prefix("ForiegnK", "ForeignKeyDescriptor")
    assert longer is not None and dict(longer.parts)["coverage"] < part["coverage"]
    assert match_typo_prefix("ForiegnKey", "ForeignKey") is None  # the whole name: match_typo
    assert match_typo_prefix("ForeignK", "ForeignKey") is None  # a literal prefix
    assert match_typo_prefix("DoriegnK", "ForeignKey") is None  # another first letter
    assert match_typo_prefix("FrogienK", "ForeignKey") is None  # two edits
    assert match_typo_prefix("Frg", "Forge") is None  # under four letters


# --- invariants (Hypothesis) -------------------------------------------------------

_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ_", min_size=1, max_size=12)
_kind = st.sampled_from(sorted(KIND_WEIGHTS))
_vis = st.sampled_from(["public", "private", "protected", "unknown"])
_path = st.sampled_from(
    [
        "a.py",
        "src/a.rs",
        "tests/test_a.py",
        "package/dist/a.d.ts",
        "vendor/x/y/z/w/a.go",
        "lib/a/a.rb",
    ]
)
_parent = st.sampled_from([None, "Model", "BaseManager", "make.LocalModel", "Foo::Bar"])


@st.composite
def _cand(draw: st.DrawFn, name: str) -> Candidate:
    return Candidate(name, draw(_kind), draw(_vis), None, draw(_path), "python")


@settings(max_examples=300, deadline=None)
@given(data=st.data(), leaf=_word, tail=_word)
def test_exact_never_ranks_below_prefix(data: st.DataObject, leaf: str, tail: str) -> None:
    q = parse(leaf)
    if not q.leaf or q.leaf_fold == "" or tail.strip("_") == "":
        return
    exact = score(q, data.draw(_cand(leaf)))
    longer = score(q, data.draw(_cand(leaf + tail)))
    assert exact is not None and longer is not None
    if "prefix" in dict(longer.score.parts):
        assert exact.score.total > longer.score.total


@settings(max_examples=200, deadline=None)
@given(
    q=_word,
    scope=st.sampled_from(["", "Manager.", "Foo::Bar#", "http.Client."]),
    name=_word,
    kind=_kind,
    vis=_vis,
    parent=_parent,
    path=_path,
)
def test_the_total_is_the_sum_of_the_named_parts(
    q: str, scope: str, name: str, kind: str, vis: str, parent: str | None, path: str
) -> None:
    """What --explain shows adds up to the score the results are ranked by, and every
    part is a feature docs/scoring.md names (a weight in WEIGHTS or the kind weight)."""
    s = score(parse(scope + q), Candidate(name, kind, vis, parent, path, "python"))
    if s is None:
        return
    assert abs(s.score.total - sum(v for _, v in s.score.parts)) < 1e-9
    named = set(WEIGHTS) | {"kind", "visibility"}
    assert {f for f, _ in s.score.parts} <= named, s.score.parts


@settings(max_examples=200, deadline=None)
@given(q=_word, name=_word)
def test_positions_index_matched_letters_of_the_name(q: str, name: str) -> None:
    m = match_name(q, name)
    if m is None:
        return
    assert all(0 <= p < len(name) for p in m.positions)
    assert list(m.positions) == sorted(set(m.positions))
    got = [name[p].lower() for p in m.positions]
    if m.kind in ("abbrev", "subseq"):
        assert got == [ch for ch in q.lower() if ch not in "_-."]
    elif m.kind == "prefix":  # literally, or with the joiners dropped from both
        assert got in (list(q.lower()), [ch for ch in q.lower() if ch not in "_-."])


# --- the ceiling: what retrieval may leave unread (search/layers.py) ---------------

# every context boost at its strongest: today, the branch's own file, the anchor's
# file and every level of its scope, the repository searched from among others
_STRONGEST = Boosts(
    age_days=0.0,
    current_repo=True,
    branch="file",
    enclosing=1 << 20,
    anchor_file=True,
    anchor_steps=0,
)
_boosts = st.builds(
    Boosts,
    age_days=st.one_of(st.none(), st.floats(-5, 400)),
    current_repo=st.booleans(),
    branch=st.sampled_from(["", "file", "dir", "skipped"]),
    enclosing=st.integers(0, 6),
    anchor_file=st.booleans(),
    anchor_steps=st.one_of(st.none(), st.integers(0, 6)),
)


def _most(parts: tuple[tuple[str, float], ...]) -> float:
    return sum(v for _, v in parts if v > 0)


@settings(max_examples=400, deadline=None)
@given(
    q=_word,
    kind_word=st.sampled_from(["", "class ", "struct ", "function "]),
    name=_word,
    kind=_kind,
    vis=_vis,
    parent=_parent,
    path=st.one_of(_path, st.sampled_from(["src/Effect.ts", "model/Model.py", "lib/effect/x.rb"])),
    project=st.sampled_from(["", "effect", "model"]),
    boosts=_boosts,
)
def test_no_candidate_scores_above_its_match_and_the_ceiling(
    q: str,
    kind_word: str,
    name: str,
    kind: str,
    vis: str,
    parent: str | None,
    path: str,
    project: str,
    boosts: Boosts,
) -> None:
    """An unscoped query's candidate scores at most its match's positive parts plus
    `ceiling` with the strongest boosts: the bound that lets a crowded name's page
    leave the prefix names unread that could not place in it."""
    query = parse(kind_word + q)
    s = score(query, Candidate(name, kind, vis, parent, path, "python", project), boosts=boosts)
    if s is None or query.scope:
        return
    top = ceiling(query, _STRONGEST)
    assert top is not None
    assert s.score.total <= _most(s.match.parts) + top + 1e-9, (s.score.parts, top)


def test_the_ceiling_is_reached() -> None:
    # every positive part at once: a kind word, the case, the file, directory,
    # type and project named like the definition, and each boost at its strongest
    query = parse("interface Effect")
    cand = Candidate("Effect", "interface", "public", "Effect", "Effect.ts", "ts", "effect")
    s = score(query, cand, boosts=_STRONGEST)
    top = ceiling(query, _STRONGEST)
    assert s is not None and top is not None
    assert s.score.total == _most(s.match.parts) + top, s.score.parts
    # a scoped query's qualifier is decided outside the scorer: no bound
    assert ceiling(parse("io.Reader"), _STRONGEST) is None
