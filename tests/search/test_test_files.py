"""Which file names are tests' (core.paths.is_test_file_name), held to the patterns
the scorer used to compile: the same answer on real names and on every mix of the
pieces those patterns are made of."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import pytest

from rq_engine.core.paths import is_test_file_name
from tests.conftest import Repo, Run

# What core/paths documents is_test_file_name as (it once was these expressions).
LOWERED = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb)$|_spec\.rb$|\.(test|spec)\.[cm]?[jt]sx?$|^tests?\.py$"
    r"|^test_.*\.(c|cc|cpp|cxx)$|_(unit)?test\.(c|cc|cpp|cxx)$|_tests?\.rs$|^tests\.rs$)"
)
AS_WRITTEN = re.compile(r"[a-z0-9]Tests?\.(java|php)$")


def documented(base: str) -> bool:
    return bool(LOWERED.search(base.lower()) or AS_WRITTEN.search(base))


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("test_models.py", True),
        ("tests.py", True),
        ("server_test.go", True),
        ("user_spec.rb", True),
        ("app.test.ts", True),
        ("button.spec.mjsx", True),
        ("string_test.cc", True),
        ("foo_unittest.cpp", True),
        ("test_printf.c", True),
        ("MapTest.java", True),
        ("CollectionTests.php", True),
        ("Latest.java", False),
        ("Test.java", False),
        ("test_.py", True),
        ("test_.c", True),
        ("testing.py", False),
        ("contest.py", False),
        ("models.py", False),
        ("test_models.pyc", False),
        ("tests.rs", True),  # `#[cfg(test)] mod tests;` out of line
        ("store_tests.rs", True),
        ("layout_test.rs", True),
        ("test.rs", False),  # rustc's #[test] macro
        ("test_case.rb", False),  # ActiveSupport::TestCase
        ("ChangeCipherSpec.java", False),  # a TLS message
        ("test.go", False),  # the Go distribution's test runner
    ],
)
def test_test_file_names(base: str, expected: bool) -> None:
    assert is_test_file_name(base) is expected
    assert documented(base) is expected


def test_every_mix_of_the_patterns_pieces_answers_as_the_patterns_did() -> None:
    pieces = ["test", "Test", "s", "_", "unit", ".", "py", "c", "cc", "m", "j", "t", "x",
              "spec", "rb", "go", "java", "php", "rs", "a", "9", "\n", "İ"]  # fmt: skip
    for n in range(5):
        for parts in itertools.product(pieces, repeat=n):
            base = "".join(parts)
            assert is_test_file_name(base) == documented(base), repr(base)


def test_both_rankers_call_the_same_paths_test_code(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """The symbol scorer's `path_test` and the text ranker's test prior follow one
    rule (core/paths.is_test_path): a Rust module's out-of-line tests are test code
    to both, Rails' TestCase (in test_case.rb, outside any test directory) to neither."""
    repo = make_repo(
        {
            "src/fs/tests.rs": "pub fn read_file_twice() {}\n",
            "lib/active_support/test_case.rb": "class TestCase\n  def assert_nothing_raised\n  end\nend\n",
        }
    )
    for name, words, is_test in (
        ("read_file_twice", "read file twice", True),
        ("assert_nothing_raised", "assert nothing raised", False),
    ):
        symbol = rq("-q", "--explain", name, cwd=repo.root)
        assert symbol.code == 0, symbol.err
        text = rq("--explain", "--text", words, cwd=repo.root)
        assert text.code == 0, text.err
        top_symbol = symbol.out.split("\n    total")[0]
        top_text = text.out.split("\n\n")[0]
        assert ("path_test" in top_symbol) is is_test, symbol.out
        assert ("test code" in top_text) is is_test, text.out
