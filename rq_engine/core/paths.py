"""What a file's path says about the code in it: test directories and TypeScript
declaration files, one home for the symbol scorer (core/scoring), the pool's
compiled-twin rule (search/rank) and the text ranker (text/bm25, text/rerank).

The symbol scorer's test-file names live here too (is_test_file_name, built from
each language's LanguageSpec); the text
ranker keeps its own stem rules over TEST_DIRS (text/rerank: they still differ,
see issue #10), but a directory or suffix named here means the same thing to
all of them. Stdlib only, and no `re`: the scorer runs on the `rq -q` hot path.
"""

from __future__ import annotations

from rq_engine.core.languages import SPECS

#: directories that hold tests (compared lower-cased / case-folded)
TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "testdata"})
#: TypeScript declaration files: generated from (or describing) code elsewhere
TS_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")

# The symbol scorer's test-file names: each language's LanguageSpec says its own
# (core/languages.py), written out rather than as regular expressions (`re`, with
# `enum`, costs `rq -q` ~3 ms to import). What they were, and what a test still
# checks them against:
#   lower-cased:  ^test_.*\.py$  _test\.(py|go|rb)$  _spec\.rb$  ^tests?\.py$
#                 \.(test|spec)\.[cm]?[jt]sx?$
#                 ^test_.*\.(c|cc|cpp|cxx)$  _(unit)?test\.(c|cc|cpp|cxx)$
#   as written:   [a-z0-9]Tests?\.(java|php)$  (JUnit's and PHPUnit's `FooTest.java`,
#                 `FooTests.php`: case decides, `Latest.java` is none)
_TEST_SUFFIXES = tuple(suffix for spec in SPECS for suffix in spec.test_suffixes)
_TEST_NAMES = frozenset(name for spec in SPECS for name in spec.test_names)
_TEST_PREFIXES = tuple(pair for spec in SPECS for pair in spec.test_prefixes)
_TEST_CLASS_SUFFIXES = tuple(suffix for spec in SPECS for suffix in spec.test_class_suffixes)
_LOWER_OR_DIGIT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def is_test_file_name(base: str) -> bool:
    """Whether a file's name (no directory) is a test's: `test_models.py`,
    `server_test.go`, `user_spec.rb`, `app.test.ts`, `string_test.cc`, `MapTest.java`."""
    # (`$` in the patterns above also matched before a final newline)
    name = base[:-1] if base.endswith("\n") else base
    low = name.lower()
    if low.endswith(_TEST_SUFFIXES) or low in _TEST_NAMES:
        return True
    if "\n" not in low and any(  # (`.*` stops at a newline)
        low.startswith(prefix) and low.endswith(ext) and len(low) >= len(prefix) + len(ext)
        for prefix, ext in _TEST_PREFIXES
    ):
        return True
    for suffix in _TEST_CLASS_SUFFIXES:
        if name.endswith(suffix):
            cut = len(name) - len(suffix)
            return cut > 0 and name[cut - 1] in _LOWER_OR_DIGIT
    return False
