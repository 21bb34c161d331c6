"""What a file's path says about the code in it: test directories and TypeScript
declaration files, one home for the symbol scorer (core/scoring), the pool's
compiled-twin rule (search/rank) and the text ranker (text/bm25, text/rerank).

The symbol scorer's test-file names live here too (is_test_file_name); the text
ranker keeps its own stem rules over TEST_DIRS (text/rerank: they still differ,
see issue #10), but a directory or suffix named here means the same thing to
all of them. Stdlib only, and no `re`: the scorer runs on the `rq -q` hot path.
"""

from __future__ import annotations

#: directories that hold tests (compared lower-cased / case-folded)
TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "testdata"})
#: TypeScript declaration files: generated from (or describing) code elsewhere
TS_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")

# The symbol scorer's test-file names, written out rather than as regular
# expressions (`re`, with `enum`, costs `rq -q` ~3 ms to import). What they were,
# and what a test still checks them against:
#   lower-cased:  ^test_.*\.py$  _test\.(py|go|rb)$  _spec\.rb$  ^tests?\.py$
#                 \.(test|spec)\.[cm]?[jt]sx?$
#                 ^test_.*\.(c|cc|cpp|cxx)$  _(unit)?test\.(c|cc|cpp|cxx)$
#   as written:   [a-z0-9]Tests?\.(java|php)$  (JUnit's and PHPUnit's `FooTest.java`,
#                 `FooTests.php`: case decides, `Latest.java` is none)
_C_EXTS = (".c", ".cc", ".cpp", ".cxx")
_TEST_SUFFIXES = (
    "_test.py",
    "_test.go",
    "_test.rb",
    "_spec.rb",
    *(f"_{unit}test{ext}" for unit in ("", "unit") for ext in _C_EXTS),
    # `foo.test.ts`, `foo.spec.mjs`, `foo.test.cjsx`: .(test|spec).[cm]?[jt]sx?
    *(
        f".{kind}.{cm}{jt}s{x}"
        for kind in ("test", "spec")
        for cm in ("", "c", "m")
        for jt in ("j", "t")
        for x in ("", "x")
    ),
)
_TEST_CLASS_SUFFIXES = ("Test.java", "Tests.java", "Test.php", "Tests.php")
_LOWER_OR_DIGIT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def is_test_file_name(base: str) -> bool:
    """Whether a file's name (no directory) is a test's: `test_models.py`,
    `server_test.go`, `user_spec.rb`, `app.test.ts`, `string_test.cc`, `MapTest.java`."""
    # (`$` in the patterns above also matched before a final newline)
    name = base[:-1] if base.endswith("\n") else base
    low = name.lower()
    if low.endswith(_TEST_SUFFIXES) or low in ("test.py", "tests.py"):
        return True
    if (
        low.startswith("test_")
        and "\n" not in low  # (`.*` stops at a newline)
        and (
            (low.endswith(".py") and len(low) >= 8)
            or any(low.endswith(ext) and len(low) >= 5 + len(ext) for ext in _C_EXTS)
        )
    ):
        return True
    for suffix in _TEST_CLASS_SUFFIXES:
        if name.endswith(suffix):
            cut = len(name) - len(suffix)
            return cut > 0 and name[cut - 1] in _LOWER_OR_DIGIT
    return False
