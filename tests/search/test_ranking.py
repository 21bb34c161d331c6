"""How definitions rank, through the search API: a query in, ranked hits and their
explained parts out (the same `Score.parts` `--explain`, the picker and MCP show).

One real git repository, indexed once by the real `rq --index`, answered by the
QueryService every face calls. Feature names and weights are docs/scoring.md's;
no matcher or feature function is called directly here (test_scoring.py holds
the scorer's own unit tests).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rq_engine.core.scoring import KIND_WEIGHTS, WEIGHTS
from rq_engine.search.types import Hit
from tests.search.served import Ask, served

PY_NAMES = """\
class RefundProcessor:
    pass


def render_to_string(template):
    return template


def runPromise():
    pass


class ValidationError:
    pass


class HashWithIndifferentAccess:
    pass


class ObjectDoesNotExist:
    pass


class BehaviorSubject:
    pass


class ForeignKey:
    pass


class ContextView:
    pass


class AboutTemplateAttributeView:
    pass


class AbstractContextManager:
    pass


class HttpResponse:
    pass


class Semaphore:
    pass


class TcpListener:
    pass


class ContentTag:
    pass


class ParseGodepsJSON:
    pass


def dataclass():
    pass


def as_view():
    pass


def abd():
    pass


def select():
    pass


def behavior():
    pass


def matchAll():
    pass


def dbOnce():
    pass


def do_test_trashcan_python_class():
    pass


def concurrentTxExecTest():
    pass


def belongs_to():
    pass


class ReentrantReadWriteLock:
    pass


def schedule():
    pass


class sched_dl_entity:
    pass


class Deprecated:
    pass


class DeprecatedList:
    pass
"""

CORPUS = {
    "names/words.py": PY_NAMES,
    "io/streams.py": "class AsyncWrite:\n    pass\n\n\nclass AsyncWriteExt:\n    pass\n",
    "lib/record.rb": "class Record\n  def save!\n  end\nend\n",
    "lib/tag_helper.rb": "module TagHelper\n  def content_tag\n  end\nend\n",
    "lib/foo/bar.rb": "module Foo\n  class Bar\n    def baz\n    end\n  end\nend\n",
    "src/zod.ts": "export class $ZodObject {}\n",
    "src/text.ts": "export function utf8Decode(b: string) {\n  return b;\n}\n",
    "src/assoc.ts": "export function BelongsTo() {\n  return 1;\n}\n",
    "case/table.py": (
        "class Table:\n    def Symbol(self):\n        pass\n\n    def symbol(self):\n        pass\n"
    ),
    "kinds/shapes.py": "class Foo:\n    pass\n",
    "mm/page.c": "#define PAGE_SIZE 4096\n#define LIST_HEAD(name) int name\n",
    "mm/size.c": "int page_size(void) {\n  return 0;\n}\n",
    "fs/dcache.c": "struct dentry {\n  int d_flags;\n};\n",
    "lib/test_printf.c": "void dentry(void) {\n}\n",
    "lib/enum.rb": "module Enum\n  class EnumType\n  end\nend\n",
    "lib/binary.rb": "class Binary\n  def type\n  end\nend\n",
    "vis/Pub.java": "public class Pub {\n  public void foo() {}\n  public void foobar() {}\n}\n",
    "vis/Priv.java": "public class Priv {\n  private void foo() {}\n}\n",
    "java/lang/NullPointerException.java": "public class NullPointerException {}\n",
    "java/net/NetPermission.java": "public class NetPermission {}\n",
    "package/src/internal/Subject.ts": "export class Subject {}\n",
    "package/dist/types/internal/Subject.d.ts": "export declare class Subject {}\n",
    "tests/admin/tests.py": "class ModelAdmin:\n    pass\n",
    "src/net/http/serve_test.go": "package http\n\ntype Server struct{}\n",
    "a/b/c/d/e/f/g/h.py": "def deep_thing():\n    pass\n",
    "django/managers.py": (
        "class BaseManager:\n    def get_queryset(self):\n        pass\n\n\n"
        "class GenericRelatedObjectManager:\n    def get_queryset(self):\n        pass\n"
    ),
    "src/strings/strings.go": "package strings\n\nfunc Split(s string) []string {\n\treturn nil\n}\n",
    "src/strings/builder.go": "package strings\n\ntype Builder struct{}\n",
    "src/cmd/go/cfg.go": "package cfg\n\nvar BuildRace bool\n",
    "lib/http/request.rb": (
        "class Request\n  include Inputs\n\n  def get_input_source\n  end\nend\n"
    ),
    "lib/http/inputs.rb": "module Inputs\n  def input\n  end\nend\n",
    "lib/week.rb": "class Week\n  def next_week\n  end\nend\n",
    "lib/day.rb": "class Day\n  def initialize\n  end\nend\n",
    "app/helpers.py": "def log_info():\n    pass\n\n\ndef information():\n    pass\n",
    "log/handlers.py": "def index_node_for_object():\n    pass\n",
    "src/sync/mutex.go": "package sync\n\ntype Mutex struct{}\n\nfunc (m *Mutex) Lock() {}\n",
    "src/net/http/client.go": "package http\n\ntype Client struct{}\n\nfunc (c *Client) Do() {}\n",
    "orm/model.py": (
        "class Model:\n    def save(self):\n        pass\n\n\n"
        "def make():\n    class LocalModel:\n        def save(self):\n            pass\n\n"
        "    return LocalModel\n"
    ),
    "collections/__init__.py": "def namedtuple():\n    pass\n\n\nclass deque:\n    pass\n",
    "src/strconv/atoi.go": "package strconv\n\nfunc ParseInt(s string) int {\n\treturn 0\n}\n",
    "src/fmt/print.go": "package fmt\n\nfunc Print(a string) {}\n",
    "geo/ages.py": "def min_age():\n    pass\n",
    "package/src/Effect.ts": "export function gen() {\n  return 1;\n}\n",
    "package/src/internal/effect.ts": "export function gen() {\n  return 2;\n}\n",
    "_pydecimal.py": "class Context:\n    pass\n",
    "support/error.hpp": (
        "class Error {\npublic:\n  explicit operator bool() const { return true; }\n};\n"
    ),
    "pip/_internal/req.py": "class Req:\n    pass\n",
    "rt/worker.rs": "fn pre_shutdown() {}\n\nfn poll_result() {}\n",
    "lib/validations.rb": "module Validations\n  def validates\n  end\n\n  def validates_size_of\n  end\nend\n",
    "tmpl/base.py": "class Template:\n    pass\n",
    "tmpl/tests.py": "def test_template_tag_escapes():\n    pass\n",
    "dataclasses.py": "def dataclass():\n    pass\n",
    "tests/test_opcodes.py": "class DClass:\n    pass\n",
}


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ask]:
    """Answer a query in the corpus repository (named `effect`: its project name)."""
    yield from served(tmp_path_factory.mktemp("ranking"), "effect", CORPUS, 50)


def find(hits: list[Hit], name: str, path: str | None = None) -> Hit:
    for h in hits:
        if h.name == name and (path is None or h.path == path):
            return h
    raise AssertionError(f"{name} ({path}) not among {[(h.name, h.path) for h in hits]}")


def names(hits: list[Hit]) -> set[str]:
    return {h.name for h in hits}


def parts(h: Hit) -> dict[str, float]:
    return dict(h.score.parts)


def quality(h: Hit) -> str:
    """The match quality --explain names first: exact, prefix, abbrev, subseq or typo."""
    return h.score.parts[0][0]


def order(hits: list[Hit]) -> list[tuple[str, str]]:
    return [(h.path, h.name) for h in hits]


# --- words ---------------------------------------------------------------------


def test_word_starts_follow_camel_snake_acronyms_digits_and_sigils(ask: Ask) -> None:
    for q, name in [
        ("hwia", "HashWithIndifferentAccess"),
        ("rp", "RefundProcessor"),
        ("rts", "render_to_string"),
        ("zodobj", "$ZodObject"),
        ("u8d", "utf8Decode"),
    ]:
        assert quality(find(ask(q), name)) == "abbrev", (q, name)


def test_a_query_matches_only_in_order(ask: Ask) -> None:
    assert find(ask("valerr"), "ValidationError")
    assert "ValidationError" not in names(ask("errval"))


# --- match quality ---------------------------------------------------------------


def test_exact_beats_prefix_beats_abbreviation_beats_subsequence(ask: Ask) -> None:
    got = []
    for q in ("refundprocessor", "refundproc", "rp", "rfdprcsr"):
        h = find(ask(q), "RefundProcessor")
        got.append((quality(h), h.score.total))
    assert [g[0] for g in got] == ["exact", "prefix", "abbrev", "subseq"]
    totals = [g[1] for g in got]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == 4


def test_joiners_left_out_score_fifty_behind_the_spelled_out_name(ask: Ask) -> None:
    spelled = find(ask("render_to_string"), "render_to_string")
    joined = find(ask("rendertostring"), "render_to_string")
    assert quality(spelled) == quality(joined) == "exact"
    assert spelled.score.total - joined.score.total == -WEIGHTS["separators"] == 50
    assert parts(joined)["separators"] == -50 and "separators" not in parts(spelled)
    # and the other way round: joiners added to a camelCase name
    assert parts(find(ask("run_promise"), "runPromise"))["separators"] == -50


def test_a_typed_joiner_says_where_a_word_starts(ask: Ask) -> None:
    # `pre_sut`: the s after `_` starts a word (shutdown), so poll_result, which spells
    # p-resu-t with that s inside `result`, is no match; it ranked first, closer-packed
    assert order(ask("pre_sut")) == [("rt/worker.rs", "pre_shutdown")]
    assert quality(find(ask("pre_sut"), "pre_shutdown")) == "subseq"
    # without the joiner nothing says so: both match in order
    assert {"pre_shutdown", "poll_result"} <= names(ask("presut"))


def test_other_characters_are_part_of_the_name(ask: Ask) -> None:
    # D19: `save` is not an exact match of Ruby's `save!`
    assert quality(find(ask("save"), "save!")) == "prefix"


def test_prefix_prefers_the_shorter_completion(ask: Ask) -> None:
    assert order(ask("AsyncWri"))[:2] == [
        ("io/streams.py", "AsyncWrite"),
        ("io/streams.py", "AsyncWriteExt"),
    ]


def test_abbreviation_runs_start_at_word_starts(ask: Ask) -> None:
    for q, name in [
        ("valerr", "ValidationError"),
        ("hwia", "HashWithIndifferentAccess"),
        ("objdne", "ObjectDoesNotExist"),
        ("bsubj", "BehaviorSubject"),
    ]:
        assert quality(find(ask(q), name)) == "abbrev", (q, name)


def test_intra_word_fuzz_is_a_subsequence_and_marks_the_letters(ask: Ask) -> None:
    h = find(ask("frgnkey"), "ForeignKey")
    assert quality(h) == "subseq"
    assert h.positions == (0, 2, 5, 6, 7, 8, 9)  # F o r e i g n K e y: what the picker bolds
    assert "".join(h.name[i] for i in h.positions).lower() == "frgnkey"


def test_letters_before_the_first_word_start_earn_nothing(ask: Ask) -> None:
    # D15: `ata` lies inside `dataclass` but never reaches a word start
    assert "dataclass" not in names(ask("ata"))
    assert quality(find(ask("cview"), "ContextView")) == "abbrev"


def test_orphan_letters_do_not_match(ask: Ask) -> None:
    # the p of Template cannot stand for a word whose start was skipped
    assert "AboutTemplateAttributeView" not in names(ask("apiview"))


# --- typos -----------------------------------------------------------------------


def test_a_swap_is_one_edit(ask: Ask) -> None:
    for q, name in [
        ("selcet", "select"),
        ("behaviour", "behavior"),
        ("Semahpore", "Semaphore"),
        ("ForiegnKey", "ForeignKey"),
    ]:
        h = find(ask(q), name)
        assert quality(h) == "typo" and parts(h)["typo_edit"] == WEIGHTS["typo_edit"], (q, h)


def test_a_near_miss_is_found_and_three_edits_are_not(ask: Ask) -> None:
    one = find(ask("HttpRepsonse"), "HttpResponse")
    assert quality(one) == "typo" and parts(one)["typo_edit"] == WEIGHTS["typo_edit"]
    assert "HttpResponse" not in names(ask("HtRepsonsx"))  # three edits


def test_short_queries_get_fewer_edits(ask: Ask) -> None:
    assert "as_view" not in names(ask("apiview"))  # 7 letters: one edit only
    assert "abd" not in names(ask("abc"))  # under 4 letters: none


def test_a_literal_match_is_not_taken_for_a_typo(ask: Ask) -> None:
    h = ask("select")[0]
    assert (h.name, quality(h)) == ("select", "exact") and "typo_edit" not in parts(h)


def test_one_slip_from_a_whole_name_outranks_an_abbreviation_it_happens_to_spell(
    ask: Ask,
) -> None:
    # `Templtae` abbreviates test_template_tag_escapes (templ, t, a, e), `validats`
    # validates_size_of (validat, s): both ranked first, above the name mistyped
    for q, name in [("Templtae", "Template"), ("validats", "validates")]:
        h = ask(q)[0]
        assert h.name == name, (q, order(ask(q)))
        assert parts(h)["whole_name"] == WEIGHTS["whole_name"]
        assert parts(h)["alignment"] == WEIGHTS["alignment"]  # every letter typed kept
    # the swap is an edit; a letter left out is the subsequence it always was
    assert parts(ask("Templtae")[0])["typo_edit"] == WEIGHTS["typo_edit"]
    assert quality(ask("validats")[0]) == "subseq"
    # the abbreviation still answers, below; an abbreviation of nothing whole is unchanged
    assert order(ask("validats"))[1] == ("lib/validations.rb", "validates_size_of")
    assert "whole_name" not in parts(find(ask("valsizeof"), "validates_size_of"))
    # a letter too many is no whole name: `dtclass` abbreviates dataclass, one letter
    # more than DClass
    assert order(ask("dtclass"))[0] == ("dataclasses.py", "dataclass")
    assert "whole_name" not in parts(find(ask("dtclass"), "DClass"))


def test_a_near_miss_keeps_its_first_letter(ask: Ask) -> None:
    assert "matchAll" not in names(ask("catchAll"))
    assert "dbOnce" not in names(ask("debounce"))  # two edits need ten letters


def test_a_slip_in_a_name_not_finished_yet_still_finds_it(ask: Ask) -> None:
    # what the picker asks at each key after a slip: one edit from the name's start
    for q, name in [
        ("ForiegnK", "ForeignKey"),  # swap
        ("BehaviourSub", "BehaviorSubject"),  # a letter too many
        ("Refnudproc", "RefundProcessor"),  # swap, lower-case
        ("Semahp", "Semaphore"),
    ]:
        h = ask(q)[0]
        assert h.name == name, (q, order(ask(q)))
        assert quality(h) == "typo" and parts(h)["typo_prefix"] == WEIGHTS["typo_prefix"], (q, h)
    # a near miss of a whole name is not one of its start
    assert "typo_prefix" not in parts(find(ask("Semahpore"), "Semaphore"))
    # a whole name two edits away does not keep out one a single edit into its start,
    # nor outrank it
    hits = ask("DrprecatedL")
    assert parts(find(hits, "Deprecated"))["typo_edit"] == 2 * WEIGHTS["typo_edit"]
    assert parts(hits[0])["typo_prefix"] == WEIGHTS["typo_prefix"]
    assert order(hits)[:2] == [
        ("names/words.py", "DeprecatedList"),
        ("names/words.py", "Deprecated"),
    ]
    # …nor a first letter changed, two edits, or a name the query is longer than
    for q in ("Sorefundproc", "Rfenudproc", "ForiegnKeyz"):
        assert not any("typo_prefix" in parts(h) for h in ask(q)), q


# --- case, kind, visibility -------------------------------------------------------


def test_uppercase_query_rewards_the_same_spelling(ask: Ask) -> None:
    hits = ask("Symbol")
    upper, lower = find(hits, "Symbol", "case/table.py"), find(hits, "symbol", "case/table.py")
    assert parts(upper)["case"] == WEIGHTS["case"] and "case" not in parts(lower)
    assert hits.index(upper) < hits.index(lower)


def test_lowercase_query_is_case_agnostic(ask: Ask) -> None:
    hits = ask("symbol")
    assert parts(find(hits, "Symbol")) == parts(find(hits, "symbol"))


def test_a_scope_typed_with_capitals_makes_the_query_case_aware(ask: Ask) -> None:
    # `Map.entry`: whoever types the scope's capital types the leaf's case on purpose
    hits = ask("Table.symbol")
    assert [h.name for h in hits[:2]] == ["symbol", "Symbol"]
    assert parts(hits[0])["case"] == WEIGHTS["case"] and "case" not in parts(hits[1])
    hits = ask("table.symbol")  # all lower case: casual, as before
    assert "case" not in parts(find(hits, "symbol")) and "case" not in parts(find(hits, "Symbol"))
    # an abbreviation's letters are lower case whatever humps they stand for
    hits = ask("Table.symbl")
    assert "case" not in parts(find(hits, "symbol")) and "case" not in parts(find(hits, "Symbol"))


def test_case_counts_letters_not_joiners(ask: Ask) -> None:
    # an UPPER_SNAKE query is spelled like the macro, not like the function
    hits = ask("PAGE_SIZE")
    assert parts(find(hits, "PAGE_SIZE"))["case"] == WEIGHTS["case"]
    assert "case" not in parts(find(hits, "page_size"))
    assert parts(find(ask("LIST_HEAD"), "LIST_HEAD"))["case"] == WEIGHTS["case"]


def test_a_kind_word_prefers_that_kind(ask: Ask) -> None:
    hits = ask("struct dentry")
    struct, func = find(hits, "dentry", "fs/dcache.c"), find(hits, "dentry", "lib/test_printf.c")
    assert struct.kind == "struct" and func.kind == "function"
    assert parts(struct)["kind_word"] == WEIGHTS["kind_word"] and "kind_word" not in parts(func)
    assert hits.index(struct) < hits.index(func)


def test_a_kind_word_and_one_word_are_also_the_words_of_a_name(ask: Ask) -> None:
    # no enum is named `type`: EnumType spells both words typed, a `type` method one
    hits = ask("enum type")
    assert hits[0].name == "EnumType" and quality(hits[0]) == "exact"
    assert "type" in names(hits)  # the kind word's reading is still listed
    # a definition of the kind named still comes first, then what leaves the word out
    hits = ask("struct dentry")
    assert (hits[0].path, hits[0].kind) == ("fs/dcache.c", "struct")


def test_kind_weight_and_visibility_tiebreak(ask: Ask) -> None:
    assert parts(find(ask("Foo"), "Foo", "kinds/shapes.py"))["kind"] == KIND_WEIGHTS["class"]
    hits = ask("foo")
    pub, priv = find(hits, "foo", "vis/Pub.java"), find(hits, "foo", "vis/Priv.java")
    assert (pub.visibility, priv.visibility) == ("public", "private")
    assert parts(priv)["visibility"] == WEIGHTS["private"] and "visibility" not in parts(pub)
    assert pub.score.total - priv.score.total == -WEIGHTS["private"]
    # a tiebreaker, never a filter: a private exact match still beats a public prefix
    assert hits.index(priv) < hits.index(find(hits, "foobar", "vis/Pub.java"))


# --- path ------------------------------------------------------------------------


def test_path_features_prefer_canonical_sources(ask: Ask) -> None:
    hits = ask("Subject")
    src = find(hits, "Subject", "package/src/internal/Subject.ts")
    dist = find(hits, "Subject", "package/dist/types/internal/Subject.d.ts")
    assert parts(dist)["path_generated"] == WEIGHTS["path_generated"]
    assert "path_generated" not in parts(src) and parts(src)["path_name"] == WEIGHTS["path_name"]
    assert hits.index(src) < hits.index(dist)
    assert parts(find(ask("ModelAdmin"), "ModelAdmin"))["path_test"] == WEIGHTS["path_test"]
    assert parts(find(ask("Server"), "Server"))["path_test"] == WEIGHTS["path_test"]
    assert parts(find(ask("deep_thing"), "deep_thing"))["path_depth"] == WEIGHTS["path_depth_cap"]


def test_path_scoring_tiebreaks(ask: Ask) -> None:
    # a package entry file speaks for its directory
    assert "path_depth" not in parts(find(ask("namedtuple"), "namedtuple"))
    hits = ask("gen")
    entry = find(hits, "gen", "package/src/Effect.ts")  # the file named after the project
    internal = find(hits, "gen", "package/src/internal/effect.ts")
    assert parts(entry)["path_project"] == WEIGHTS["path_project"]
    assert parts(internal)["path_internal"] == WEIGHTS["path_internal"]
    assert hits.index(entry) < hits.index(internal)
    tag = find(ask("content_tag"), "content_tag", "lib/tag_helper.rb")
    assert parts(tag)["path_parent"] == WEIGHTS["path_parent"]


def test_private_modules_take_the_private_path_penalty(ask: Ask) -> None:
    assert parts(find(ask("Context"), "Context"))["path_private"] == WEIGHTS["path_private"]
    assert parts(find(ask("Req"), "Req"))["path_private"] == WEIGHTS["path_private"]
    assert "path_private" not in parts(find(ask("deque"), "deque"))


# --- qualifier ---------------------------------------------------------------------


def test_scope_chain_must_end_the_parent(ask: Ask) -> None:
    for q in ("Foo::Bar#baz", "Foo::Bar.baz", "Bar.baz"):
        assert parts(find(ask(q), "baz"))["scope"] == WEIGHTS["scope"], q
    # `Foo` is not where baz's parent chain ends: no scope answered
    assert "scope" not in parts(find(ask("Foo.baz"), "baz"))


def test_scope_suffix_prefers_the_closer_parent(ask: Ask) -> None:
    hits = ask("Manager.get_queryset")
    base = find(hits, "get_queryset", "django/managers.py")
    far = [h for h in hits if h.name == "get_queryset" and h is not base][0]
    assert base.parent == "BaseManager" and far.parent == "GenericRelatedObjectManager"
    assert parts(base)["scope_suffix"] > parts(far)["scope_suffix"] > 0
    assert hits.index(base) < hits.index(far)


def test_scope_may_name_the_package(ask: Ask) -> None:
    h = find(ask("strings.Split"), "Split")
    assert parts(h)["scope_path"] == WEIGHTS["scope_path"]


def test_scope_typo_forgives_two_edits(ask: Ask) -> None:
    for q in ("Mutx.Lock", "Mutexx.Lock"):
        assert parts(find(ask(q), "Lock"))["scope_typo"] == WEIGHTS["scope_typo"], q
    assert "scope_typo" not in parts(find(ask("Mtxqq.Lock"), "Lock"))


def test_a_mistyped_leaf_is_sought_in_its_scope_before_the_leaf_alone(ask: Ask) -> None:
    # `Buildr` starts BuildRace, outside `strings`; the scope's own Builder is one letter
    # short of it (a subsequence, and a typo)
    hits = ask("strings.Buildr")
    assert (hits[0].name, hits[0].path) == ("Builder", "src/strings/builder.go")
    assert quality(hits[0]) in ("subseq", "typo") and "scope_path" in parts(hits[0])
    assert "BuildRace" not in names(hits)  # the leaf alone is the fallback, not an extra
    # a whole name is taken as typed: the mixin's `input`, which the class uses, before
    # an abbreviation inside the class (rq does not follow `include`)
    hits = ask("Request#input")
    assert (hits[0].name, quality(hits[0])) == ("input", "exact")
    assert "scope_unmatched" in parts(hits[0])
    # nor before what the retries answer first: the class that declares no constructor
    # (not Week's next_week, an abbreviation of `new`), and `.` as any one character
    hits = ask("Week.new")
    assert (hits[0].name, hits[0].kind) == ("Week", "class") and "constructor_owner" in parts(
        hits[0]
    )
    hits = ask("log.info")
    assert hits[0].name == "log_info" and "wildcard" in parts(hits[0])


def test_package_qualified_scope_chain(ask: Ask) -> None:
    assert parts(find(ask("http.Client.Do"), "Do"))["scope"] == WEIGHTS["scope"]
    assert "scope" not in parts(find(ask("rpc.Client.Do"), "Do"))


def test_scope_typo_after_a_package_head(ask: Ask) -> None:
    assert parts(find(ask("http.Clinet.Do"), "Do"))["scope_typo"] == WEIGHTS["scope_typo"]


def test_nesting_penalises_definitions_deep_inside_others(ask: Ask) -> None:
    hits = ask("save")
    method = find(hits, "save", "orm/model.py")
    local = [h for h in hits if h.name == "save" and h.path == "orm/model.py" and h is not method]
    assert method.parent == "Model" and "nesting" not in parts(method)
    assert len(local) == 1 and parts(local[0])["nesting"] == WEIGHTS["nesting"]
    assert hits.index(method) < hits.index(local[0])


def test_the_total_is_the_sum_of_the_explained_parts(ask: Ask) -> None:
    for h in ask("Manager.get_queryset"):
        assert abs(h.score.total - sum(v for _, v in h.score.parts)) < 1e-9


# --- what a fuzzy match may not claim ---------------------------------------------


def test_a_match_may_not_skip_an_inner_word(ask: Ask) -> None:
    assert "ParseGodepsJSON" not in names(ask("ParseJSON"))
    hits = ask("dtclass")
    assert "do_test_trashcan_python_class" not in names(hits) and "dataclass" in names(hits)


def test_a_match_may_leave_out_a_little_joining_word(ask: Ask) -> None:
    # `to`, `with`: what people drop when they abbreviate a name (words.FILLER_WORDS)
    assert quality(find(ask("renderstring"), "render_to_string")) == "abbrev"
    assert quality(find(ask("hashindifferent"), "HashWithIndifferentAccess")) == "abbrev"
    # still not a word that carries meaning (the test above)
    assert "ObjectDoesNotExist" not in names(ask("objectnotexist"))


def test_an_abbreviation_may_begin_at_a_later_word_with_the_same_letter(ask: Ask) -> None:
    # the r of Reentrant cannot begin `readwrlock`; the r of Read can (late_start)
    hit = find(ask("readwrlock"), "ReentrantReadWriteLock")
    assert quality(hit) == "abbrev" and parts(hit)["late_start"] == WEIGHTS["late_start"]
    # a match from the name's start is never traded for a later one
    assert "late_start" not in parts(find(ask("rrwlock"), "ReentrantReadWriteLock"))


def test_a_query_of_every_word_s_initial_is_the_name_s_acronym(ask: Ask) -> None:
    # n, p, e: one letter a word, every word. NetPermission's letters (N, P, pErmission)
    # abbreviate it too, and it is the shorter name: `coverage` alone gave it first place
    hits = ask("npe")
    assert [h.name for h in hits[:2]] == ["NullPointerException", "NetPermission"]
    assert parts(hits[0])["initials"] == WEIGHTS["initials"]
    assert "initials" not in parts(hits[1])
    # not an acronym: a word's second letter, or a word left out
    assert "initials" not in parts(find(ask("nupe"), "NullPointerException"))
    assert "initials" not in parts(find(ask("np"), "NullPointerException"))


def test_a_whole_consonant_skeleton_is_an_abbreviation(ask: Ask) -> None:
    # not a scattered subsequence that any name hitting word starts (sched_dl_…) outranks
    hits = ask("schdl")
    assert (hits[0].name, quality(hits[0])) == ("schedule", "skeleton")
    assert parts(hits[0])["skeleton"] == WEIGHTS["skeleton"] == WEIGHTS["abbrev"]
    assert quality(find(ask("schdle"), "schedule")) == "subseq"  # an e kept: a subsequence


def test_a_skeleton_may_keep_a_word_s_leading_vowel(ask: Ask) -> None:
    # parse → prs, Int → int: each word's first letter, then its consonants. As a
    # subsequence ParseInt ranked below Print, which the query misses by one letter
    hits = ask("prsint")
    assert (hits[0].name, quality(hits[0])) == ("ParseInt", "skeleton")
    assert quality(find(hits, "Print")) == "typo"
    assert quality(find(ask("prsnt"), "ParseInt")) == "skeleton"  # (the vowel left out)
    assert quality(find(ask("prsent"), "ParseInt")) == "subseq"  # not a word's first letter
    # the consonants alone make the four letters a skeleton needs: m-n-g is three
    assert quality(find(ask("mnag"), "min_age")) == "subseq"


def test_words_typed_apart_match_every_spelling_of_them_alike(ask: Ask) -> None:
    hits = ask("belongs to")
    snake, camel = find(hits, "belongs_to"), find(hits, "BelongsTo")
    assert quality(snake) == quality(camel) == "exact"
    # a space says where a word ends, not how the name joins its words (D44)
    assert "separators" not in parts(snake) and "separators" not in parts(camel)
    assert parts(find(ask("belongsto"), "belongs_to"))["separators"] == WEIGHTS["separators"]
    assert order(ask("render string"))[0] == ("names/words.py", "render_to_string")
    # a name with a space of its own is found as typed
    hit = ask("operator bool")[0]
    assert (hit.name, quality(hit)) == ("operator bool", "exact")


def test_case_sensitive_query_does_not_claim_humps_with_lowercase_letters(ask: Ask) -> None:
    # `Contxet` says one word: its t, x, e may not stand for Tx, Exec, Test
    assert "concurrentTxExecTest" not in names(ask("Contxet"))
    assert "concurrentTxExecTest" in names(ask("contxet"))  # lowercase: agnostic
    assert quality(find(ask("TcpLstnr"), "TcpListener")) == "skeleton"  # (its consonants)
    assert quality(find(ask("TcpLsnr"), "TcpListener")) == "subseq"


def test_a_typed_joiner_the_name_lacks_costs_the_separator_penalty(ask: Ask) -> None:
    hits = ask("belogns_to")
    snake, camel = find(hits, "belongs_to"), find(hits, "BelongsTo")
    assert quality(snake) == quality(camel) == "typo"
    assert parts(camel)["separators"] == WEIGHTS["separators"] and "separators" not in parts(snake)
    fuzzy = find(ask("cntnt_tag"), "ContentTag")
    assert parts(fuzzy)["separators"] == WEIGHTS["separators"]


def test_a_miss_is_empty(ask: Ask) -> None:
    assert ask("Zebra") == []
