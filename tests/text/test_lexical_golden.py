"""Golden fingerprints of the lexical document contract (rq-analyzer/2, rq-lexdoc/1).

A change to any value here is a change of the lexical-projection identity: it
must come with a new ANALYZER_ID / DOCUMENT_SCHEMA, never as a silent edit.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.text import lexical as L
from rq_engine.text import segment

GOLDEN = {
    # field presence: all five fields
    "all_fields": (
        (
            "github.com/o/r|src/a.py|method|Paginator.page",
            "page",
            "Paginator.page",
            "method",
            "src/a.py",
        ),
        '["rq-lexdoc/1","github.com/o/r|src/a.py|method|Paginator.page","page","Paginator.page","method","src/a.py"]',
        "6bfb1cd04ca8b986a3b3cf702896f135357ae609c04657d586351f35f6724a97",
    ),
    # absent (None) and empty ("") are different documents
    "absent_qualified": (
        ("id1", "page", None, "method", "src/a.py"),
        '["rq-lexdoc/1","id1","page",null,"method","src/a.py"]',
        "405524225c10086a10e07ff621b29249e434da398ddedd90efd2e83c74d59331",
    ),
    "empty_qualified": (
        ("id1", "page", "", "method", "src/a.py"),
        '["rq-lexdoc/1","id1","page","","method","src/a.py"]',
        "939e22f37b6271853db4a2665dcdd9c672dcf55c068e5dd56261b15c40088f4a",
    ),
    # Unicode: composed and decomposed spellings are one document
    "composed": (
        ("id2", "caf\u00e9", "M.caf\u00e9", "function", "d\u00e9j\u00e0/x.py"),
        '["rq-lexdoc/1","id2","caf\u00e9","M.caf\u00e9","function","d\u00e9j\u00e0/x.py"]',
        "ac4e8ca35cb9392bb8ceb053154b357a20092e879fe1f31b1df87a652c81a2ce",
    ),
    "decomposed": (
        ("id2", "cafe\u0301", "M.cafe\u0301", "function", "de\u0301ja\u0300/x.py"),
        '["rq-lexdoc/1","id2","caf\u00e9","M.caf\u00e9","function","d\u00e9j\u00e0/x.py"]',
        "ac4e8ca35cb9392bb8ceb053154b357a20092e879fe1f31b1df87a652c81a2ce",
    ),
    # non-Latin identifiers
    "cjk": (
        ("id3", "获取用户", "服务.获取用户", "function", "服务/用户.go"),
        '["rq-lexdoc/1","id3","获取用户","服务.获取用户","function","服务/用户.go"]',
        "fac96771d796bc7e8fd6f571692bbabcdf2cd9ae27333939379aebb5257c3b8a",
    ),
    "cyrillic": (
        ("id4", "ПолучитьДанные", "Модуль.ПолучитьДанные", "method", "модуль.rb"),
        '["rq-lexdoc/1","id4","ПолучитьДанные","Модуль.ПолучитьДанные","method","модуль.rb"]',
        "fd9b117008be8094a856ca2b9b526eae075bd89fae3f93e4e7b8ab39f4bbcba5",
    ),
    # path normalisation: backslashes, ./ and empty segments project alike
    "path_windows": (
        ("id5", "f", "f", "function", ".\\src\\\\pkg\\f.go"),
        '["rq-lexdoc/1","id5","f","f","function","src/pkg/f.go"]',
        None,
    ),
    "path_posix": (
        ("id5", "f", "f", "function", "src/pkg/f.go"),
        '["rq-lexdoc/1","id5","f","f","function","src/pkg/f.go"]',
        None,
    ),
}
GOLDEN_IDENTITY = "16c7dfe04042e2f0e1a972bb5d759450d00b9a94a17eae1df94fa28026d98be7"
IDENTITY_CASES = ("all_fields", "composed", "cjk", "cyrillic")


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_canonical_encoding_and_digest(case: str) -> None:
    fields, encoding, digest = GOLDEN[case]
    doc = L.project(*fields)
    assert doc.encode().decode("utf-8") == encoding
    if digest is not None:
        assert doc.fingerprint() == digest


def test_windows_and_posix_paths_have_one_fingerprint() -> None:
    a = L.project(*GOLDEN["path_windows"][0])
    b = L.project(*GOLDEN["path_posix"][0])
    assert a.fingerprint() == b.fingerprint()


def test_absent_and_empty_fields_differ() -> None:
    a = L.project(*GOLDEN["absent_qualified"][0])
    b = L.project(*GOLDEN["empty_qualified"][0])
    assert a.fingerprint() != b.fingerprint()


def test_projection_identity_is_order_independent_and_golden() -> None:
    docs = [L.project(*GOLDEN[c][0]) for c in IDENTITY_CASES]
    assert L.projection_identity(docs) == GOLDEN_IDENTITY
    assert L.projection_identity(reversed(docs)) == GOLDEN_IDENTITY
    assert L.projection_identity(sorted(docs, key=lambda d: d.name or "")) == GOLDEN_IDENTITY


def test_projection_identity_sees_every_field_change() -> None:
    base = [L.project(*GOLDEN[c][0]) for c in IDENTITY_CASES]
    changed = [
        *base[:-1],
        L.project("id4", "ПолучитьДанные", "Модуль.ПолучитьДанные", "function", "модуль.rb"),
    ]
    assert L.projection_identity(changed) != GOLDEN_IDENTITY


def test_duplicate_ids_are_an_error_not_a_pick() -> None:
    a = L.project("same", "a", "a", "function", "x.py")
    b = L.project("same", "b", "b", "function", "x.py")
    with pytest.raises(L.DuplicateDocument):
        L.projection_identity([a, b])


def test_repeated_serialisation_is_byte_identical_across_processes() -> None:
    """Same bytes twice in one process and in fresh processes with other hash seeds."""
    docs = [L.project(*GOLDEN[c][0]) for c in IDENTITY_CASES]
    assert [d.encode() for d in docs] == [d.encode() for d in docs]
    code = (
        "from tests.text.test_lexical_golden import GOLDEN, IDENTITY_CASES\n"
        "from rq_engine.text import lexical as L\n"
        "print(L.projection_identity(L.project(*GOLDEN[c][0]) for c in IDENTITY_CASES))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for seed in ("0", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == GOLDEN_IDENTITY


SEGMENTATION = {
    "HTTPServer": ["http", "server", "httpserver"],
    "camelCase": ["camel", "case", "camelcase"],
    "PascalCase": ["pascal", "case", "pascalcase"],
    "snake_case": ["snake", "case", "snakecase"],
    "kebab-case": ["kebab", "case", "kebabcase"],
    "SCREAMING_SNAKE": ["screaming", "snake", "screamingsnake"],
    "Sum256": ["sum", "256", "sum256"],
    "utf8": ["utf", "8", "utf8"],
    # the symbol ranker's word starts (one rule): lower-case after digits stays
    "sha256sum": ["sha", "256sum", "sha256sum"],
    "utf8Decode": ["utf", "8", "decode", "utf8decode"],
    "getJSON": ["get", "json", "getjson"],
    "toJSONSchema": ["to", "json", "schema", "tojsonschema"],
    "XMLHttpRequest": ["xml", "http", "request", "xmlhttprequest"],
    "parseHTML5Doc": ["parse", "html", "5", "doc", "parsehtml5doc"],
    "__init__": ["init"],
    "save!": ["save"],
    "Foo::Bar#baz": ["foo", "bar", "baz"],
    "a.b.C": ["a", "b", "c"],
    "用户Name": ["用户", "name", "用户name"],
    "ÆsirReader": ["æsir", "reader", "æsirreader"],
    "Straße": ["strasse"],
    "ＦｕｌｌＷｉｄｔｈ": ["full", "width", "fullwidth"],  # NFKC folds full-width forms
    "naïve": ["naïve"],
    "nai\u0308ve": ["naïve"],
}


@pytest.mark.parametrize("text", sorted(SEGMENTATION))
def test_identifier_segmentation(text: str) -> None:
    assert L.analyze_text(text) == SEGMENTATION[text]


def test_path_segmentation_drops_the_extension_only() -> None:
    assert L.analyze_field("path", "django/db/models/query.py") == [
        "django",
        "db",
        "models",
        "query",
    ]
    assert L.analyze_field("path", "lib/active_support/hash_with_indifferent_access.rb") == [
        "lib",
        "active",
        "support",
        "activesupport",
        "hash",
        "with",
        "indifferent",
        "access",
        "hashwithindifferentaccess",
    ]
    assert L.analyze_field("path", "src\\io\\io.go") == ["src", "io", "io"]
    assert L.analyze_field("path", ".gitignore") == ["gitignore"]
    assert L.analyze_field("path", "types.d.ts") == ["types", "d"]


def test_kind_field_speaks_each_languages_keyword() -> None:
    assert L.analyze_field("kind", "function") == ["function", "func", "fn", "def"]
    assert L.analyze_field("kind", "struct") == ["struct"]
    assert L.analyze_field("kind", "Weird") == ["weird"]


def test_fields_are_bounded_before_indexing() -> None:
    doc = L.project("x", "a" * 10_000, "q" * 10_000, "function", "p/" * 5000)
    assert len(doc.name or "") == L.FIELD_MAX_CHARS["name"]
    assert len(doc.qualified or "") == L.FIELD_MAX_CHARS["qualified"]
    assert len(doc.path or "") <= L.FIELD_MAX_CHARS["path"]
    many = " ".join(f"w{i}x" for i in range(500))
    assert len(L.analyze_field("name", many)) == L.MAX_TERMS_PER_FIELD
    assert all(len(t) <= L.MAX_TERM_CHARS for t in L.analyze_text("x" * 500))
    with pytest.raises(ValueError):
        L.project("i" * (L.FIELD_MAX_CHARS["id"] + 1), "a", "a", "function", "p")


def test_query_compounds_cover_their_words() -> None:
    units, cover, words = L.query_terms("function deep copy")
    assert words == [("function", 1), ("deep", 2), ("copy", 4)]
    assert units == ["function", "deep", "copy"]
    assert cover["deepcopy"] == cover["deep"] | cover["copy"]
    assert cover["functiondeepcopy"] == cover["function"] | cover["deep"] | cover["copy"]
    units, cover, _ = L.query_terms("crypto SHA256 sum")
    assert units == ["crypto", "sha", "256", "sum"]
    assert cover["sha256"] == cover["sha"] | cover["256"]


ascii_text = st.text(
    alphabet=st.sampled_from("aAbBzZ09_-$ ./:#HTTPServerxY"), min_size=0, max_size=30
)


@settings(max_examples=300, deadline=None)
@given(text=ascii_text)
def test_ascii_fast_path_segments_like_the_general_one(text: str) -> None:
    fast = [segment.ASCII_PART.findall(i) for i in segment.identifiers(text)]
    general = [segment.segment(i) for i in segment.identifiers_general(text)]
    assert [[p.lower() for p in ps] for ps in fast] == [
        [p.casefold() for p in ps] for ps in general
    ]


@settings(max_examples=300, deadline=None)
@given(path=st.text(alphabet=st.sampled_from("ab./\\\\"), max_size=12))
def test_path_fast_path_agrees(path: str) -> None:
    assert L.normalize_path(path) == L._normalize_path_general(path)


names = st.text(alphabet=st.sampled_from("aBc_1.:#=~ é"), min_size=0, max_size=12)


@settings(max_examples=300, deadline=None)
@given(prefix=names, name=names, path=names, kind=st.sampled_from(["function", "Class", "x"]))
def test_field_analyzer_equals_the_reference_terms(
    prefix: str, name: str, path: str, kind: str
) -> None:
    for qualified in (
        f"{prefix}.{name}",
        f"{prefix}::{name}",
        f"{prefix}#{name}",
        prefix + name,
        name,
    ):
        doc = L.project("id", name, qualified, kind, path)
        an = L.FieldAnalyzer()
        ref = doc.terms()
        assert an.fields(doc) == tuple(tuple(ref[f]) for f in L.FIELDS)
        assert an.compacts(doc) == (L.compact(doc.name or ""), L.compact(doc.qualified or ""))
        assert an.fields(doc) == tuple(tuple(ref[f]) for f in L.FIELDS)  # memo hit, same answer


@settings(max_examples=200, deadline=None)
@given(prefix=names, name=names, path=names)
def test_field_analyzer_lengths_equal_the_reference(prefix: str, name: str, path: str) -> None:
    doc = L.project("id", name, f"{prefix}::{name}", "function", path)
    ref = doc.lengths()
    assert L.FieldAnalyzer().lengths(doc) == tuple(ref[f] for f in L.FIELDS)


def test_lengths_count_words_not_compounds_or_aliases() -> None:
    doc = L.project("id", "QuerySet", "db.QuerySet", "function", "django/db/query_set.py")
    assert doc.lengths() == {"name": 2, "qualified": 3, "kind": 1, "path": 4}


@settings(max_examples=100, deadline=None)
@given(prefix=names, name=names)
def test_field_analyzer_own_agrees_with_fields_lengths_compacts(prefix: str, name: str) -> None:
    doc = L.project("id", name, f"{prefix}.{name}", "method", "a/b.py")
    an = L.FieldAnalyzer()
    nt, qt, nn, qn, nc, qc = an.own(doc)
    f, n = an.fields(doc), an.lengths(doc)
    assert (nt, qt, nn, qn) == (f[0], f[1], n[0], n[1])
    assert (nc, qc) == an.compacts(doc)
