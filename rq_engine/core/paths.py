"""What a file's path says about the code in it: whether it holds tests, and
TypeScript declaration files. One home for the symbol scorer (core/scoring's
`path_test`), the pool's compiled-twin rule (search/rank) and the text ranker
(text/bm25's twins, text/rerank's test prior): a path is a test's for all of
them or for none.

Test files are named as each language names them (its LanguageSpec), not by a
language-blind shape: `test_case.rb` is ActiveSupport's TestCase, `test.go`
the Go distribution's test runner, `ChangeCipherSpec.java` a TLS message.
Stdlib only, and no `re`: the scorer runs on the `rq -q` hot path.
"""

from __future__ import annotations

from rq_engine.core.languages import SPECS

#: directories that hold tests (compared lower-cased / case-folded)
TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "testdata"})
#: TypeScript declaration files: generated from (or describing) code elsewhere
TS_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
#: TypeScript sources, and the JavaScript that compiling them writes: the symbol
#: pool takes `x.js` beside its own `x.d.ts` for a compiled copy (search/rank), the
#: text ranker any JavaScript of a TypeScript source's stem (text/twins)
TS_SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")

# Test-file names: each language's LanguageSpec says its own
# (core/languages.py), written out rather than as regular expressions (`re`, with
# `enum`, costs `rq -q` ~3 ms to import). What they were, and what a test still
# checks them against:
#   lower-cased:  ^test_.*\.py$  _test\.(py|go|rb)$  _spec\.rb$  ^tests?\.py$
#                 \.(test|spec)\.[cm]?[jt]sx?$
#                 ^test_.*\.(c|cc|cpp|cxx)$  _(unit)?test\.(c|cc|cpp|cxx)$
#                 _tests?\.rs$  ^tests\.rs$
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


def is_test_path(path: str) -> bool:
    """Whether a repository path ('/'-separated) holds tests: under a test directory
    (`tests/`, `spec/`, `__tests__/`, `testdata/`) or named as its language names a
    test file (is_test_file_name)."""
    dirs, _, base = path.rpartition("/")
    if is_test_file_name(base):
        return True
    return bool(dirs) and any(d.lower() in TEST_DIRS for d in dirs.split("/"))
