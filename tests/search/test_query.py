"""The query parser: scope chains, joiners, case, path-likeness."""

from __future__ import annotations

import pytest

from rq_engine.core.query import fold, looks_like_path, parse, split_scope
from rq_engine.lang import registry


@pytest.mark.parametrize(
    ("text", "leaf", "scope"),
    [
        ("Foo", "Foo", ()),
        ("Foo::Bar#baz", "baz", ("Foo", "Bar")),
        ("Foo::Bar", "Bar", ("Foo",)),
        ("Foo.new", "new", ("Foo",)),
        ("strings.Split", "Split", ("strings",)),
        ("a.b.C", "C", ("a", "b")),
        ("  spaced  ", "spaced", ()),
        ("::Foo", "Foo", ()),  # a root-scope marker names no scope
        ("Foo::", "Foo", ()),
        ("select_rel", "select_rel", ()),  # a joiner is not a scope separator
        ("save!", "save!", ()),
    ],
)
def test_scope_chains(text: str, leaf: str, scope: tuple[str, ...]) -> None:
    q = parse(text)
    assert q.leaf == leaf
    assert q.scope == scope


def test_dotted_flag_only_for_dot_separators() -> None:
    assert parse("Foo.bar").dotted
    assert not parse("Foo::bar").dotted
    assert not parse("Foo#bar").dotted


def test_case_sensitivity_comes_from_any_uppercase_letter() -> None:
    assert parse("Symbol").has_upper
    assert not parse("symbol").has_upper
    assert not parse("Foo.bar").has_upper and parse("Foo.bar").scope_upper
    assert not parse("foo.bar").scope_upper


def test_fold_drops_joiners_and_case() -> None:
    assert fold("render_to-string.X") == "rendertostringx"
    assert parse("run_promise").leaf_fold == "runpromise"
    assert parse("run_promise").has_joiners
    assert not parse("runPromise").has_joiners


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("django/http", True),
        ("models.py", True),
        ("server.go", True),
        ("Foo.new", False),
        ("strings.Split", False),
        ("HttpResponse", False),
        ("a\\b", False),  # a PHP namespace chain (`App\Http`)
        ("src\\Kernel.php", True),
    ],
)
def test_looks_like_path(text: str, expected: bool) -> None:
    assert looks_like_path(text) is expected
    assert parse(text).looks_like_path is expected


def test_a_file_name_of_every_language_rq_reads_is_a_path() -> None:
    """`rq -q UserController.php` asks for the file, not a member `php` of a scope."""
    exts = registry.extensions()
    assert ".php" in exts and ".c++" in exts
    assert [e for e in exts if not looks_like_path(f"Name{e}")] == []


def test_backslash_separates_php_namespaces() -> None:
    q = parse("\\Illuminate\\Support\\Collection")
    assert (q.leaf, q.scope, q.dotted) == ("Collection", ("Illuminate", "Support"), False)
    q = parse("Support\\Collection::make")
    assert (q.leaf, q.scope) == ("make", ("Support", "Collection"))


def test_empty_query_has_empty_leaf() -> None:
    assert parse("   ").leaf == ""
    assert parse("").scope == ()


def test_unscoped_keeps_the_raw_text_as_leaf() -> None:
    q = parse("foo.bar")
    assert q.unscoped().leaf == "foo.bar"
    assert q.unscoped().scope == ()


@pytest.mark.parametrize(
    ("text", "leaf", "scope", "kind"),
    [
        ("struct file", "file", (), "struct"),
        ("enum pid_type", "pid_type", (), "enum"),
        ("union  bpf_attr", "bpf_attr", (), "union"),
        ("class llvm::StringRef", "StringRef", ("llvm",), "class"),
        ("struct", "struct", (), ""),  # the keyword alone is a name
        ("structure", "structure", (), ""),
        ("struct a b", "struct_a_b", (), ""),  # more than one word after it: a name's words
    ],
)
def test_a_leading_definition_keyword_names_the_kind(
    text: str, leaf: str, scope: tuple[str, ...], kind: str
) -> None:
    q = parse(text)
    assert (q.leaf, q.scope, q.kind) == (leaf, scope, kind)


@pytest.mark.parametrize(
    ("text", "leaf", "scope"),
    [
        ("get queryset", "get_queryset", ()),
        ("listen  and\tserve", "listen_and_serve", ()),
        ("Manager :: get queryset", "get_queryset", ("Manager",)),
        ("  render to string ", "render_to_string", ()),
    ],
)
def test_words_typed_apart_are_joined_as_an_underscore_joins_them(
    text: str, leaf: str, scope: tuple[str, ...]
) -> None:
    q = parse(text)
    assert (q.leaf, q.scope, q.words) == (leaf, scope, leaf.replace("_", " "))


def test_a_name_typed_whole_has_no_words() -> None:
    assert parse("get_queryset").words == parse("Manager :: get_queryset").words == ""


def test_a_path_query_keeps_its_spaces() -> None:
    q = parse("my docs/read me.md")
    assert (q.leaf, q.looks_like_path) == ("my docs/read me.md", True)


def test_scope_splitting_is_the_separator_pattern_written_out() -> None:
    # split_scope replaced re.split(r"::|#|\.|\\"): same pieces, same separators,
    # on every mix of separators, lone colons and letters up to six long
    import itertools
    import re

    pattern = re.compile(r"::|#|\.|\\")
    alphabet = [":", "#", ".", "\\", "a", "Bc", "é"]
    for n in range(7):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            assert split_scope(text) == (pattern.split(text), pattern.findall(text)), text
