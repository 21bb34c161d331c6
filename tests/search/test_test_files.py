"""Which file names are tests' (core.paths.is_test_file_name), held to the patterns
the scorer used to compile: the same answer on real names and on every mix of the
pieces those patterns are made of."""

from __future__ import annotations

import itertools
import re

import pytest

from rq_engine.core.paths import is_test_file_name

# What core/paths documents is_test_file_name as (it once was these expressions).
LOWERED = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb)$|_spec\.rb$|\.(test|spec)\.[cm]?[jt]sx?$|^tests?\.py$"
    r"|^test_.*\.(c|cc|cpp|cxx)$|_(unit)?test\.(c|cc|cpp|cxx)$)"
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
    ],
)
def test_test_file_names(base: str, expected: bool) -> None:
    assert is_test_file_name(base) is expected
    assert documented(base) is expected


def test_every_mix_of_the_patterns_pieces_answers_as_the_patterns_did() -> None:
    pieces = ["test", "Test", "s", "_", "unit", ".", "py", "c", "cc", "m", "j", "t", "x",
              "spec", "rb", "go", "java", "php", "a", "9", "\n", "İ"]  # fmt: skip
    for n in range(5):
        for parts in itertools.product(pieces, repeat=n):
            base = "".join(parts)
            assert is_test_file_name(base) == documented(base), repr(base)
