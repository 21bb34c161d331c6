"""Queries typed the way people mistype them (bench/perturb.py's styles), through the
search API: a query in, ranked hits and their explained parts out.

Each test names the general cause a miss had: the scorer not seeing a leading
underscore the query left out, a near miss ignoring the case the user typed, a
consonant skeleton unable to enter a word that starts with a vowel, two-edit near
misses retrieval never proposed, a first letter swapped with the second. One real
git repository, indexed by the real `rq --index`, answered by the QueryService
every face calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from rq_engine.core.scoring import WEIGHTS
from rq_engine.search.types import Hit
from tests.conftest import Repo, Run
from tests.search.served import Ask, ask_fixture, served

CORPUS = {
    # C: the internal `__name` helper beside the API it implements
    # (the helper is the longer definition: the tiebreak alone would pick it)
    "kernel/sched/core.c": (
        "void __schedule(unsigned int mode) {\n  mode++;\n  mode++;\n}\n\n"
        "void schedule(void) {\n  __schedule(0);\n}\n"
    ),
    "mm/slab_common.c": (
        "int __kmem_cache_create(int c) {\n  return c;\n}\n\n"
        "int kmem_cache_create(int c) {\n  return __kmem_cache_create(c);\n}\n"
    ),
    "include/linux/container_of.h": "#define container_of(ptr, type, member) ptr\n",
    # TypeScript: an exported `_name` beside the public one
    "src/api.ts": "export function _superRefine(x: number) {\n  return x;\n}\n",
    "src/schemas.ts": "export function superRefine(x: number) {\n  return x;\n}\n",
    # Python: dunders are no internals
    "pkg/box.py": "class Box:\n    def __init__(self):\n        pass\n\n    def init(self):\n        pass\n",
    # Ruby: the module and a method of the same letters
    "lib/active_support/concern.rb": "module Concern\nend\n",
    "lib/active_support/core_ext/kernel/concern.rb": "module Kernel\n  def concern\n  end\nend\n",
    # Go: names whose words start with vowels
    "src/net/http/server.go": (
        "package http\n\nfunc ListenAndServe(addr string) error {\n\treturn nil\n}\n\n"
        "func ReadAByte() byte {\n\treturn 0\n}\n"
    ),
    "src/os/path.go": "package os\n\nfunc MkdirAll(path string) error {\n\treturn nil\n}\n",
    "src/context/context.go": "package context\n\ntype Context interface{}\n",
    "src/html/template/context.go": "package template\n\ntype context struct{}\n",
    "concurrent/futures/thread.py": "class ThreadPoolExecutor:\n    pass\n",
    # long names for two-edit near misses
    "django/http/request.py": "class HttpRequest:\n    pass\n",
    "tempfile.py": "class TemporaryDirectory:\n    pass\n",
    "words.py": "def matchAll():\n    pass\n",
}


ask = ask_fixture("near", CORPUS, 20)


def top(hits: list[Hit]) -> tuple[str, str]:
    assert hits, "no hits"
    return hits[0].path, hits[0].name


def find(hits: list[Hit], name: str) -> Hit:
    for h in hits:
        if h.name == name:
            return h
    raise AssertionError(f"{name} not among {[h.name for h in hits]}")


def parts(h: Hit) -> dict[str, float]:
    return dict(h.score.parts)


def quality(h: Hit) -> str:
    return h.score.parts[0][0]


# --- a leading underscore the query left out -------------------------------------


@pytest.mark.parametrize(
    "query, name, internal",
    [
        ("scheudle", "schedule", "__schedule"),  # a near miss of both
        ("kmemcachecreate", "kmem_cache_create", "__kmem_cache_create"),  # both exact -50
        ("kmcacr", "kmem_cache_create", "__kmem_cache_create"),  # an abbreviation of both
        ("super_refine", "superRefine", "_superRefine"),
        ("sprrfn", "superRefine", "_superRefine"),  # a consonant skeleton of both
    ],
)
def test_the_name_without_the_leading_underscore_wins(
    ask: Ask, query: str, name: str, internal: str
) -> None:
    hits = ask(query)
    assert hits[0].name == name, (query, [h.name for h in hits])
    # the same match otherwise: the convention is the one difference
    assert parts(find(hits, internal))["visibility"] == WEIGHTS["private"]
    assert "visibility" not in parts(hits[0])


def test_a_dunder_is_not_internal(ask: Ask) -> None:
    init = find(ask("__init__"), "__init__")
    assert "visibility" not in parts(init)


# --- the case a near miss was typed in --------------------------------------------


def test_a_near_miss_keeps_the_case_the_user_typed(ask: Ask) -> None:
    for q in ("Conecrn", "Ckoncern", "Confern"):
        hits = ask(q)
        module, method = find(hits, "Concern"), find(hits, "concern")
        assert quality(module) == "typo" and parts(module)["case"] == WEIGHTS["case"], q
        assert "case" not in parts(method)
        assert top(hits) == ("lib/active_support/concern.rb", "Concern"), q


def test_a_lowercase_near_miss_stays_case_agnostic(ask: Ask) -> None:
    hits = ask("conecrn")
    assert "case" not in parts(find(hits, "Concern")) and "case" not in parts(find(hits, "concern"))


# --- consonant skeletons ---------------------------------------------------------


@pytest.mark.parametrize(
    "query, name",
    [
        ("lstnndsrv", "ListenAndServe"),  # And: entered at its n
        ("thrdplxctr", "ThreadPoolExecutor"),  # Executor: at its x
        ("cntnrf", "container_of"),  # of: at its f
        ("mkdrll", "MkdirAll"),  # All: at its l
        ("rdbt", "ReadAByte"),  # A: a word of vowels only has no letter to match
    ],
)
def test_a_consonant_skeleton_enters_words_that_start_with_vowels(
    ask: Ask, query: str, name: str
) -> None:
    h = ask(query)[0]
    # (each query is its name's whole skeleton: the `skeleton` class, D45)
    assert (h.name, quality(h)) == (name, "skeleton"), query


def test_a_skipped_consonant_word_start_is_still_an_orphan(ask: Ask) -> None:
    # the t of Listen cannot stand for `Serve`: only a word's leading vowels may go
    assert "ListenAndServe" not in {h.name for h in ask("lstnndtrv")}


# --- two edits, both new letters ---------------------------------------------------


@pytest.mark.parametrize(
    "query, name",
    [
        ("HtpRequewt", "HttpRequest"),  # a letter left out, a wrong one (second half)
        ("TmpkraryDirectory", "TemporaryDirectory"),  # both in the first half
    ],
)
def test_two_edit_near_misses_of_long_names_are_found(ask: Ask, query: str, name: str) -> None:
    h = ask(query)[0]
    assert (h.name, quality(h)) == (name, "typo"), query
    assert parts(h)["typo_edit"] == 2 * WEIGHTS["typo_edit"]


# --- the first letter ------------------------------------------------------------


def test_a_first_letter_swapped_with_the_second_is_one_edit(ask: Ask) -> None:
    h = ask("lsitenAndServe")[0]
    assert (h.name, quality(h), parts(h)["typo_edit"]) == (
        "ListenAndServe",
        "typo",
        WEIGHTS["typo_edit"],
    )
    hits = ask("Ocntext")  # Shift went with the first key typed
    assert top(hits) == ("src/context/context.go", "Context")
    assert parts(hits[0])["case"] == WEIGHTS["case"]


def test_a_wrong_first_letter_is_still_no_near_miss(ask: Ask) -> None:
    assert "matchAll" not in {h.name for h in ask("catchAll")}


# --- a start many names share ----------------------------------------------------

# 400 names starting like `select_related`, as long: the near-miss read takes the
# names of a crowded start by probing each candidate, those of a sparse one by
# reading the start's range; either way it must find the same near misses.
_SEL = "".join(f"def sel{i:05d}item():\n    pass\n\n" for i in range(400))
_QUERY_PY = "class QuerySet:\n    def select_related(self):\n        pass\n"


@pytest.fixture(scope="module", params=["sparse", "crowded"])
def starts(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Ask]:
    corpus = {"db/query.py": _QUERY_PY}
    if request.param == "crowded":
        corpus["db/many.py"] = _SEL
    yield from served(tmp_path_factory.mktemp(request.param), "repo", corpus, 10)


@pytest.mark.parametrize(
    "query, edits",
    [
        ("selcet_related", 1),  # neighbours swapped
        ("select_relatde", 1),
        ("sekect_relatedd", 2),  # a wrong letter and one too many
        ("selectt_relaed", 2),  # one too many and one left out
        ("selcet_relaetd", 2),  # two pairs of neighbours swapped
    ],
)
def test_near_misses_are_found_however_many_names_share_their_start(
    starts: Ask, query: str, edits: int
) -> None:
    h = starts(query)[0]
    assert (h.name, quality(h)) == ("select_related", "typo"), query
    assert parts(h)["typo_edit"] == edits * WEIGHTS["typo_edit"]


# --- a first letter tens of thousands of names share -----------------------------

# More `t` names than one scan window holds, all sorting before `tr` (CPython has
# 23k `t` names, most of them `test_*`), and 400 short names that hold the letters
# d, r, c, r in order: the long name whose initials those are must still be matched.
_CROWD = "".join(f"def test_{i:05d}():\n    pass\n\n" for i in range(16_000))
_HOLDERS = "".join(f"def dxrcr{i:03d}():\n    pass\n\n" for i in range(400))


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ask]:
    corpus = {
        "lib2to3/fix_idioms.py": "def transform_isinstance():\n    pass\n",
        "ssp.py": "def tya_ssp_request_of():\n    pass\n",
        "tests/test_many.py": _CROWD,
        "reset.py": "def devm_reset_controller_register():\n    pass\n",
        "holders.py": _HOLDERS,
    }
    yield from served(tmp_path_factory.mktemp("crowd"), "repo", corpus, 10)


def test_a_two_edit_slip_early_in_a_name_is_found_past_a_crowded_first_letter(
    crowd: Ask,
) -> None:
    # both slips in the first half: the name is found by its end, among the names
    # around the query's own first two letters rather than the letter's first 15,000
    h = crowd("trnasfom_isinstance")[0]
    assert (h.name, quality(h)) == ("transform_isinstance", "typo")
    assert parts(h)["typo_edit"] == 2 * WEIGHTS["typo_edit"]


def test_a_two_edit_slip_at_the_second_letter_is_found_past_a_crowded_first_letter(
    crowd: Ask,
) -> None:
    # `tz`: no name sorts after it, and the answer comes after the 16,000 `test_*`
    # names below it: one window's worth, so the search reads further down instead
    h = crowd("tza_sp_request_of")[0]
    assert (h.name, quality(h)) == ("tya_ssp_request_of", "typo")
    assert parts(h)["typo_edit"] == 2 * WEIGHTS["typo_edit"]


def test_a_long_name_is_matched_by_its_initials_behind_many_shorter_holders(
    crowd: Ask,
) -> None:
    h = crowd("drcr")[0]
    assert (h.name, quality(h)) == ("devm_reset_controller_register", "abbrev")


# --- the same answer in every process ----------------------------------------------

# Go's SSA rewrite rules: hundreds of long names around one start. A query with two
# slips (`OpoRate`: a swap and a letter left out) is looked for among the names of its
# first half's starts, at most 300 of them; 400 `rewriteValueARM64_*` names also start
# one edit from that half (`rewritevaluea`, the `w` left out).
_RULES = "".join(f"func rewriteValueARM64_OpAbc{i:03d}Left8() {{}}\n" for i in range(400))
_WASM = "func rewriteValueWasm_OpRotateLeft8() {}\nfunc rewriteValueWasm_OpRotateLeft() {}\n"


def _rules(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    """The rules, two Wasm ones beside 400 ARM64 ones, as an indexed repository."""
    repo = make_repo(
        {
            "ssa/rewriteARM64.go": "package ssa\n\n" + _RULES,
            "ssa/rewriteWasm.go": "package ssa\n\n" + _WASM,
        }
    )
    assert rq("--index", ".", cwd=repo.root).code == 0
    return repo


def test_a_query_gets_the_same_answer_in_every_process(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _rules(make_repo, rq)
    # (each process hashes strings with its own seed; a set's order follows it)
    answers = {
        rq(
            "-q",
            "--limit",
            "1",
            "rewriteValueWasm_OpoRateLeft8",
            cwd=repo.root,
            env={"PYTHONHASHSEED": str(seed)},
        ).out
        for seed in range(8)
    }
    assert len(answers) == 1 and "rewriteValueWasm_OpRotateLeft8" in answers.pop()


def test_a_two_slip_query_is_found_past_a_family_one_edit_from_its_start(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    # `a` typed too and `t` → `h`: two new letters, so sought by the query's first
    # half (`rewritevalueaw`) and its one-edit variants; the half less its `w`
    # starts the 400 ARM64 names, which the read's 300-name cut held
    repo = _rules(make_repo, rq)
    r = rq("-q", "--limit", "1", "rewriteValueaWasm_OpRotaheLeft", cwd=repo.root)
    assert r.code == 0 and r.out.split()[2] == "rewriteValueWasm_OpRotateLeft", (r.out, r.err)
