"""Every number the symbol ranking uses: feature weights, kind weights, the typo
budget, the boosts' curves. docs/scoring.md explains each (and a test holds the
two together). Stdlib only.
"""

from __future__ import annotations

#: every weight the ranking uses, in one place (docs/scoring.md has the why of each)
WEIGHTS: dict[str, float] = {
    # match quality bands: exact > prefix > camel-hump abbreviation (or whole skeleton) > subsequence
    # (bands wide enough that no other feature reorders them: see docs/scoring.md)
    "exact": 2000.0,
    "prefix": 1400.0,  # + up to `completion` for the share of the name typed
    "completion": 100.0,
    "abbrev": 900.0,
    "skeleton": 900.0,  # the name's whole consonant skeleton: abbreviated the other way
    "subseq": 700.0,
    "typo": 700.0,
    "alignment": 120.0,  # fuzzy: scaled by how word-aligned/contiguous the letters are
    "coverage": 200.0,  # fuzzy: scaled by the share of the name the query accounts for
    "initials": 60.0,  # fuzzy: the query is the name's initials, one letter a word (`npe`)
    "late_start": -60.0,  # fuzzy: the match skips the name's first word
    "typo_edit": -40.0,  # per edit of a near miss
    "typo_prefix": -20.0,  # the near miss is of the name's start (`HttpRepson` → HttpResponse)
    # a near miss of the whole name (`Templtae`, `validats`) ranks in the abbreviation band
    "whole_name": 200.0,
    "separators": -50.0,  # exact/prefix only with joiners left out or added (D19)
    "wildcard": -50.0,  # `a.b` matched with `.` as any one character (no scope answered)
    "via_package": -40.0,  # the query's head named the package (`bufscanner` → bufio.Scanner)
    "via_package_level": -5.0,  # …per directory between the one named and the file's own
    "case": 60.0,  # query with uppercase, candidate spelled the same
    "constructor_owner": -500.0,  # `Foo.new` answered by Foo itself: 0.75 of exact
    # qualifier (scoped queries)
    "scope": 150.0,  # parent chain ends with the query's scope chain
    "scope_suffix": 90.0,  # parent name ends with the scope (`BaseManager` for `Manager`)
    "scope_path": 90.0,  # the scope names the file's package/module (`strings.Split`)
    "scope_file": 50.0,  # the scope is defined in the same file (inherited member)
    "scope_typo": 40.0,  # the scope matches within two edits
    "scope_unmatched": -150.0,  # nothing answered the scope; leaf-only fallback
    "kind_word": 40.0,  # the query named this kind (`struct file`, `class Foo`)
    # visibility: a tiebreaker, never a filter
    "private": -10.0,
    # path features
    "path_name": 20.0,  # file or directory named like the symbol
    "path_test": -60.0,  # a definition under tests/ or in a test file
    "path_generated": -120.0,  # dist/, build/, *.d.ts, vendored copies
    "path_parent": 5.0,  # a member in its type's own file (`TagHelper#content_tag` in tag_helper.rb)
    "path_project": 15.0,  # the file is named after the project (effect's Effect.ts)
    "path_internal": -15.0,  # under an internal/ directory: implementation, not API
    "path_private": -15.0,  # in a module or package named with a leading underscore
    "nesting": -3.0,  # per enclosing level beyond the first (a class inside a function)
    "nesting_cap": -12.0,
    "path_depth": -2.0,  # per directory level, capped
    "path_depth_cap": -12.0,
    # context boosts (the search layer passes them in through `Boosts`)
    "recency": 5.0,  # a file touched now; halves every RECENCY_HALF_LIFE_DAYS (a tiebreak)
    "current_repo": 25.0,  # --all-repos: the repository searched from
    "branch": 50.0,  # a file the feature branch changed against its trunk
    "branch_dir": 15.0,  # a file beside one it changed (same directory)
    "enclosing": 60.0,  # --anchor: per scope level shared with the anchor's definition
    "enclosing_cap": 180.0,
    "proximity_file": 90.0,  # --anchor: in the anchor's own file
    "proximity_dir": 60.0,  # --anchor: in its directory; halves per directory step
    # the canonical prior: how many files name an exact match by its qualifier (`io.Reader`)
    "referenced": 8.0,  # per doubling of those files (log2(1 + files))
    "referenced_cap": 48.0,  # reached at 63 files: a tiebreak below `case`, never a match class
    # a module or namespace opened again in another file: one definition, shown once first
    "reopened": -100.0,
    # a constructor reached through `Foo.new` (shown so `__init__` answering `new` is seen)
    "constructor": 0.0,
    # a query that is a path (`models.py`, `db/models/base.py`): the file layer's parts
    "path_query_file": 900.0,  # `path`: the file's name is the query (or a `/` query ends it)
    "path_query_suffix": 700.0,  # `path`: the path ends with the query
    "path_query_within": 500.0,  # `path`: the path holds it
    "path_query_length": 100.0,  # `length`: scaled by the share of the path the query spells
}

#: the canonical prior speaks only once some copy of a name is named by this many
#: files: one file importing one copy (`superRefine` from zod's `mini`) is no evidence
REFERENCED_MIN_FILES = 3

#: proximity below this is not shown (four directory steps away: 60 / 16 = 3.75)
PROXIMITY_MIN = 5.0

#: recency halves every two weeks: a file touched a year ago earns nothing visible
RECENCY_HALF_LIFE_DAYS = 14.0

#: kind weight: what a navigating user most often means by a bare name
KIND_WEIGHTS: dict[str, float] = {
    "class": 30.0,
    "struct": 30.0,
    "interface": 32.0,  # an interface/trait names the concept its many implementations share
    "trait": 32.0,
    "enum": 28.0,
    "union": 25.0,
    "type": 25.0,
    "function": 30.0,
    "method": 20.0,
    "module": 15.0,
    "macro": 15.0,
    "constant": 20.0,  # TS/JS `export const f = …` is how many libraries define functions
    "field": 0.0,
    "variable": 0.0,
    "file": 0.0,
}

# The typo budget, one home for the typo layer's reads (search/keys, search/nearmiss,
# the pipeline) and for match_typo: no edit under MIN_TYPO_LEN letters (one edit of a
# 3-letter name is noise), one under TWO_EDITS_LEN, then MAX_EDITS.
MIN_TYPO_LEN = 4
TWO_EDITS_LEN = 10
MAX_EDITS = 2


#: a near miss of a whole name ranks in the abbreviation band (`whole_name`) from this
#: many letters: shorter queries are abbreviations more often than names mistyped
#: (`loin` is LowerInfinite's, `prsnt` ParseInt's skeleton, though one edit from login
#: and Print)
WHOLE_NAME_MIN = 6


def typo_edits(n: int) -> int:
    """The edits a near miss of an `n`-letter (folded) query may be off by."""
    return 0 if n < MIN_TYPO_LEN else 1 if n < TWO_EDITS_LEN else MAX_EDITS
