"""What a file's path says about the code in it: test directories and TypeScript
declaration files, one home for the symbol scorer (core/scoring), the pool's
compiled-twin rule (search/rank) and the text ranker (text/bm25, text/rerank).

Each reader keeps its own predicate over these (the symbol scorer's test-file
patterns and the text ranker's stem rules still differ; see issue #10), but a
directory or suffix named here means the same thing to all of them. Stdlib only.
"""

from __future__ import annotations

#: directories that hold tests (compared lower-cased / case-folded)
TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__", "testdata"})
#: TypeScript declaration files: generated from (or describing) code elsewhere
TS_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
