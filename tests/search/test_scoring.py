"""Each scoring feature on its own, then the scorer's invariants (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.core.query import parse
from rq_engine.core.scoring import (
    KIND_WEIGHTS,
    WEIGHTS,
    Candidate,
    could_match,
    edit_distance,
    initials,
    match_exact_prefix,
    match_fuzzy,
    match_name,
    match_typo,
    path_features,
    qualifier_feature,
    score,
    skeleton,
    tokens,
    word_starts,
)


def parts(q: str, c: Candidate) -> dict[str, float]:
    s = score(parse(q), c)
    assert s is not None
    return dict(s.score.parts)


def total(q: str, c: Candidate) -> float:
    s = score(parse(q), c)
    assert s is not None
    return s.score.total


# --- words ---------------------------------------------------------------------


def test_tokens_split_camel_snake_acronyms_and_digits() -> None:
    assert tokens("RefundProcessor") == ["refund", "processor"]
    assert tokens("refund_processor") == ["refund", "processor"]
    assert tokens("HTTPServer") == ["http", "server"]
    assert tokens("$ZodObject") == ["zod", "object"]
    assert tokens("utf8Decode") == ["utf", "8", "decode"]
    assert initials("HashWithIndifferentAccess") == "hwia"
    assert word_starts("ab_cd") == [True, False, False, True, False]


def test_skeleton_keeps_first_letter_and_consonants() -> None:
    assert skeleton("Migration") == "mgrtn"
    assert skeleton("acquireRelease") == "acqrrls"
    assert skeleton("ForiegnKey") == skeleton("ForeignKey")


def test_could_match_is_the_subsequence_condition() -> None:
    assert could_match("ValidationError", "valerr")
    assert not could_match("ValidationError", "errval")
    assert not could_match("anything", "")


# --- match quality ---------------------------------------------------------------


def test_exact_beats_prefix_beats_abbreviation_beats_subsequence() -> None:
    c = Candidate
    exact = total("refundprocessor", c("RefundProcessor"))
    prefix = total("refundproc", c("RefundProcessor"))
    abbrev = total("rp", c("RefundProcessor"))
    subseq = total("rfndprcssr", c("RefundProcessor"))
    assert exact > prefix > abbrev > subseq


def test_joiners_left_out_score_fifty_behind_the_spelled_out_name() -> None:
    spelled = total("render_to_string", Candidate("render_to_string"))
    joined = total("rendertostring", Candidate("render_to_string"))
    assert spelled - joined == -WEIGHTS["separators"] == 50
    # and the other way round: joiners added to a camelCase name
    assert parts("run_promise", Candidate("runPromise"))["separators"] == -50


def test_other_characters_are_part_of_the_name() -> None:
    m = match_exact_prefix("save", "save!")
    assert m is not None and m.kind == "prefix"  # D19: not an exact match


def test_prefix_prefers_the_shorter_completion() -> None:
    assert total("AsyncWri", Candidate("AsyncWrite")) > total(
        "AsyncWri", Candidate("AsyncWriteExt")
    )


def test_abbreviation_runs_start_at_word_starts() -> None:
    for q, name in [
        ("valerr", "ValidationError"),
        ("hwia", "HashWithIndifferentAccess"),
        ("objdne", "ObjectDoesNotExist"),
        ("bsubj", "BehaviorSubject"),
    ]:
        m = match_fuzzy(q, name)
        assert m is not None and m.kind == "abbrev", (q, name)


def test_intra_word_fuzz_is_a_subsequence() -> None:
    m = match_fuzzy("frgnkey", "ForeignKey")
    assert m is not None and m.kind == "subseq"
    assert m.positions == (0, 2, 5, 6, 7, 8, 9)


def test_letters_before_the_first_word_start_earn_nothing() -> None:
    # D15: `ata` lies inside `dataclass` but never reaches a word start
    assert match_fuzzy("ata", "dataclass") is None
    early = match_fuzzy("xview", "ContextView")  # x earns nothing, View does
    late = match_fuzzy("cview", "ContextView")
    assert early is not None and late is not None
    assert sum(v for _, v in late.parts) > sum(v for _, v in early.parts)


def test_orphan_letters_do_not_match() -> None:
    # the p of Template cannot stand for a word whose start was skipped
    assert match_fuzzy("apiview", "AboutTemplateAttributeView") is None


def test_late_start_penalised() -> None:
    m = match_fuzzy("ctxmgr", "AbstractContextManager")
    assert m is not None and ("late_start", WEIGHTS["late_start"]) in m.parts


# --- typos -----------------------------------------------------------------------


def test_edit_distance_counts_a_swap_as_one_edit() -> None:
    assert edit_distance("selcet", "select") == 1
    assert edit_distance("behaviour", "behavior") == 1
    assert edit_distance("abcdef", "badcfe") == 3  # capped at 2 + 1


def test_typo_matches_up_to_two_edits_scored_by_kept_letters() -> None:
    one = match_typo("HttpRepsonse", "HttpResponse")
    two = match_typo("HtpRepsonse", "HttpResponse")
    assert one is not None and one.edits == 1 and one.evidence == 11
    assert two is not None and two.edits == 2
    assert sum(v for _, v in one.parts) > sum(v for _, v in two.parts)
    assert match_typo("HtRepsonsx", "HttpResponse") is None  # three edits


def test_short_queries_get_fewer_edits() -> None:
    assert match_typo("apiview", "as_view") is None  # 7 letters: one edit only
    assert match_typo("abc", "abd") is None  # under 4 letters: none


def test_match_name_prefers_literal_over_typo() -> None:
    m = match_name("select", "select")
    assert m is not None and m.kind == "exact"


# --- case, kind, visibility -------------------------------------------------------


def test_uppercase_query_rewards_the_same_spelling() -> None:
    assert parts("Symbol", Candidate("Symbol", kind="method")).get("case") == WEIGHTS["case"]
    assert "case" not in parts("Symbol", Candidate("symbol", kind="method"))


def test_lowercase_query_is_case_agnostic() -> None:
    a = parts("symbol", Candidate("Symbol", kind="class"))
    b = parts("symbol", Candidate("symbol", kind="class"))
    assert a == b


def test_case_counts_letters_not_joiners() -> None:
    # an UPPER_SNAKE query is spelled like the macro, not like the function
    assert parts("PAGE_SIZE", Candidate("PAGE_SIZE", kind="macro")).get("case") == WEIGHTS["case"]
    assert "case" not in parts("PAGE_SIZE", Candidate("page_size", kind="function"))
    assert parts("LIST_HEAD", Candidate("LIST_HEAD")).get("case") == WEIGHTS["case"]


def test_a_kind_word_prefers_that_kind() -> None:
    struct = parts("struct dentry", Candidate("dentry", kind="struct"))
    func = parts("struct dentry", Candidate("dentry", kind="function", path="lib/test_printf.c"))
    assert struct["kind_word"] == WEIGHTS["kind_word"] and "kind_word" not in func
    assert sum(struct.values()) > sum(func.values())


def test_kind_weight_and_visibility_tiebreak() -> None:
    assert parts("Foo", Candidate("Foo", kind="class"))["kind"] == KIND_WEIGHTS["class"]
    pub = total("foo", Candidate("foo", visibility="public"))
    priv = total("foo", Candidate("foo", visibility="private"))
    unknown = total("foo", Candidate("foo", visibility="unknown"))
    assert pub == unknown == priv - WEIGHTS["private"]
    # a tiebreaker, never a filter: a private exact match still beats a public prefix
    assert priv > total("foo", Candidate("foobar", visibility="public"))


# --- path ------------------------------------------------------------------------


def test_path_features_prefer_canonical_sources() -> None:
    src = dict(path_features("package/src/internal/Subject.ts", "Subject"))
    dist = dict(path_features("package/dist/types/internal/Subject.d.ts", "Subject"))
    test = dict(path_features("tests/admin/tests.py", "ModelAdmin"))
    gotest = dict(path_features("src/net/http/serve_test.go", "Server"))
    assert "path_generated" in dist and "path_generated" not in src
    assert "path_test" in test and "path_test" in gotest
    assert src["path_name"] == WEIGHTS["path_name"]
    assert dict(path_features("a/b/c/d/e/f/g/h.py", "x"))["path_depth"] == WEIGHTS["path_depth_cap"]


# --- qualifier ---------------------------------------------------------------------


def test_scope_chain_must_end_the_parent() -> None:
    assert qualifier_feature(("Foo", "Bar"), "Foo::Bar", "") == [("scope", WEIGHTS["scope"])]
    assert qualifier_feature(("Bar",), "Foo::Bar", "") == [("scope", WEIGHTS["scope"])]
    assert qualifier_feature(("Foo",), "Foo::Bar", "") is None
    assert qualifier_feature(("Foo",), None, "x.py") is None


def test_scope_suffix_prefers_the_closer_parent() -> None:
    base = qualifier_feature(("Manager",), "BaseManager", "")
    far = qualifier_feature(("Manager",), "GenericRelatedObjectManager", "")
    assert base is not None and far is not None
    assert base[0][0] == "scope_suffix" and base[0][1] > far[0][1]


def test_scope_may_name_the_package() -> None:
    assert qualifier_feature(("strings",), None, "src/strings/strings.go") == [
        ("scope_path", WEIGHTS["scope_path"])
    ]


def test_scope_typo_forgives_two_edits_only_on_retry() -> None:
    assert qualifier_feature(("Mutx",), "Mutex", "", typo=False) is None
    assert qualifier_feature(("Mutexx",), "Mutex", "") == [("scope_typo", WEIGHTS["scope_typo"])]
    assert qualifier_feature(("Mtxqq",), "Mutex", "") is None


def test_score_total_is_the_sum_of_parts() -> None:
    s = score(
        parse("Manager.get_queryset"),
        Candidate(
            "get_queryset", "method", parent="BaseManager", path="django/db/models/manager.py"
        ),
    )
    assert s is not None
    assert abs(s.score.total - sum(v for _, v in s.score.parts)) < 1e-9


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
    if longer.match.kind == "prefix":
        assert exact.score.total > longer.score.total


@settings(max_examples=200, deadline=None)
@given(q=_word, name=_word, kind=_kind, vis=_vis, path=_path)
def test_scores_are_deterministic(q: str, name: str, kind: str, vis: str, path: str) -> None:
    c = Candidate(name, kind, vis, None, path, "python")
    a, b = score(parse(q), c), score(parse(q), c)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert a.score == b.score and a.match.positions == b.match.positions


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


def test_a_match_may_not_skip_an_inner_word() -> None:
    assert match_fuzzy("ParseJSON", "ParseGodepsJSON") is None
    assert match_fuzzy("dtclass", "do_test_trashcan_python_class") is None
    assert match_fuzzy("dtclass", "dataclass") is not None


def test_case_sensitive_query_does_not_claim_humps_with_lowercase_letters() -> None:
    # `Contxet` says one word: its t, x, e may not stand for Tx, Exec, Test
    assert match_fuzzy("Contxet", "concurrentTxExecTest") is None
    assert match_fuzzy("contxet", "concurrentTxExecTest") is not None  # lowercase: agnostic
    m = match_fuzzy("TcpLstnr", "TcpListener")
    assert m is not None and m.kind == "subseq"


def test_a_near_miss_keeps_its_first_letter() -> None:
    assert match_typo("catchAll", "matchAll") is None
    assert match_typo("Semahpore", "Semaphore") is not None
    assert match_typo("debounce", "dbOnce") is None  # two edits need ten letters


def test_path_scoring_tiebreaks() -> None:
    entry = dict(path_features("collections/__init__.py", "namedtuple"))
    assert "path_depth" not in entry  # a package entry file speaks for its directory
    assert dict(path_features("package/src/Effect.ts", "gen", "effect"))["path_project"] > 0
    assert "path_internal" in dict(path_features("package/src/internal/effect.ts", "gen"))
    assert "path_parent" in dict(path_features("lib/tag_helper.rb", "content_tag", "", "TagHelper"))


def test_package_qualified_scope_chain() -> None:
    assert qualifier_feature(("http", "Client"), "Client", "src/net/http/client.go") == [
        ("scope", WEIGHTS["scope"])
    ]
    assert qualifier_feature(("rpc", "Client"), "Client", "src/net/http/client.go") != [
        ("scope", WEIGHTS["scope"])
    ]


def test_nesting_penalises_definitions_deep_inside_others() -> None:
    method = dict(score(parse("save"), Candidate("save", "method", parent="Model")).score.parts)  # type: ignore[union-attr]
    local = dict(
        score(parse("save"), Candidate("save", "method", parent="make.LocalModel")).score.parts  # type: ignore[union-attr]
    )
    assert "nesting" not in method
    assert local["nesting"] == WEIGHTS["nesting"]


def test_scope_typo_after_a_package_head() -> None:
    got = qualifier_feature(("http", "Clinet"), "Client", "src/net/http/client.go")
    assert got == [("scope_typo", WEIGHTS["scope_typo"])]
    assert (
        qualifier_feature(("http", "Clinet"), "Client", "src/net/http/client.go", typo=False)
        is None
    )


def test_a_typed_joiner_the_name_lacks_costs_the_separator_penalty() -> None:
    snake = match_typo("belogns_to", "belongs_to")
    camel = match_typo("belogns_to", "BelongsTo")
    assert snake is not None and camel is not None
    assert ("separators", WEIGHTS["separators"]) in camel.parts
    assert ("separators", WEIGHTS["separators"]) not in snake.parts
    fuzzy = match_fuzzy("cntnt_tag", "ContentTag")
    assert fuzzy is not None and ("separators", WEIGHTS["separators"]) in fuzzy.parts


def test_private_modules_take_the_private_path_penalty() -> None:
    assert "path_private" in dict(path_features("_pydecimal.py", "Context"))
    assert "path_private" in dict(path_features("pip/_internal/req.py", "Req"))
    assert "path_private" not in dict(path_features("collections/__init__.py", "deque"))
