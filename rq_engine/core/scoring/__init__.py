"""The pure scorer: named features adding into a Score, plus the name matchers behind them.

`score(query, candidate)` is a function of its arguments only (no clock, no
git, no I/O), so `--explain`, the picker and MCP show exactly why a result
ranked where it did. Stdlib only; must not import sqlite3, the store or any
face.

The package: weights.py holds every number (docs/scoring.md explains each),
words.py a name's words (starts, skeleton, initials), matching.py and typos.py
the name matchers, features.py every named feature of a candidate (the pool-level ones
the search layer decides included), boosts.py the context boosts (`Boosts` and
its features), this module `score`, which sums them (everything public in
those six is importable from here), and rank.py the ranking of a query's pool
(`Ranker`, `RankContext`).

Dynamic signals belong to the search layer, which owns the clock, the branch
state, the anchor and the repositories searched: it passes them in one `Boosts`
value per candidate (recency, the current repository, branch, enclosing and
proximity), and the feature functions turn them into parts.
"""

from __future__ import annotations

from rq_engine.core.query import JOINERS, Query
from rq_engine.core.record import Record
from rq_engine.core.score import Score
from rq_engine.core.scoring.boosts import (
    Boosts,
    boost_features,
    branch_feature,
    dir_steps,
    enclosing_feature,
    proximity_feature,
    recency_feature,
    shared_scope,
)
from rq_engine.core.scoring.features import (
    COLUMN_FEATURES,
    Candidate,
    case_feature,
    compiled_copy_feature,
    constructor_feature,
    constructor_owner_feature,
    kind_feature,
    kind_word_feature,
    nesting_feature,
    path_features,
    path_query_features,
    qualifier_feature,
    referenced_feature,
    reopened_feature,
    scope_chain,
    scope_file_feature,
    scope_unmatched_feature,
    via_package_feature,
    visibility_feature,
    wildcard_feature,
)
from rq_engine.core.scoring.matching import (
    IN_ORDER,
    MAX_FUZZY_LEAF,
    NameMatch,
    match_exact_prefix,
    match_fuzzy,
)
from rq_engine.core.scoring.typos import edit_distance, match_typo, match_typo_prefix
from rq_engine.core.scoring.weights import (
    KIND_WEIGHTS,
    MIN_TYPO_LEN,
    PROXIMITY_MIN,
    RECENCY_HALF_LIFE_DAYS,
    TWO_EDITS_LEN,
    WEIGHTS,
    typo_edits,
)
from rq_engine.core.scoring.words import (
    VOWELS,
    could_match,
    initials,
    skeleton,
    tokens,
    word_starts,
)


def match_name(leaf: str, name: str, *, typo: bool = True) -> NameMatch | None:
    """The best way `leaf` matches `name`: exact/prefix, else in-order fuzzy, else typo."""
    m = match_exact_prefix(leaf, name)
    if m is not None:
        return m
    m = match_fuzzy(leaf, name)
    if m is not None:
        return m
    return match_typo(leaf, name) if typo else None


class Scored(Record):
    __slots__ = ("score", "match")
    score: Score
    match: NameMatch

    def __init__(self, score: Score, match: NameMatch) -> None:
        self.score = score
        self.match = match


def score(
    query: Query,
    cand: Candidate,
    *,
    match: NameMatch | None = None,
    qualifier: list[tuple[str, float]] | None = None,
    extra: list[tuple[str, float]] | None = None,
    boosts: Boosts | None = None,
) -> Scored | None:
    """Score one candidate: the sum of every feature's parts. None if it cannot match.

    `match` may be passed when the caller already matched the name (the pipeline
    matches each distinct name once); `qualifier` likewise, when the pipeline
    decided the scope (fallbacks, `scope_file`). `extra` carries parts decided
    outside the candidate (constructor, scope fallback). `boosts` carries the
    context signals the search layer computed (recency, current repository,
    branch, enclosing, proximity).
    """
    if match is None:
        match = match_name(query.leaf, cand.name)
        if match is None:
            return None
    if qualifier is None:
        qualifier = qualifier_feature(query.scope, cand.parent, cand.path)
        if qualifier is None:
            return None
    parts: list[tuple[str, float]] = list(match.parts)
    if query.words and not any(j in query.words for j in JOINERS):
        # Words typed apart say where words end, not how the name joins them: the
        # `_` that joined them for matching is no joiner the user typed (D44)
        parts = [p for p in parts if p[0] != "separators"]
    parts += case_feature(query, cand.name, match)
    parts += kind_feature(cand.kind)
    parts += kind_word_feature(query, cand.kind)
    parts += visibility_feature(cand.visibility, cand.name)
    parts += qualifier
    chain = scope_chain(cand.parent)
    parts += nesting_feature(len(chain))
    parts += path_features(cand.path, cand.name, cand.project, chain[-1] if chain else "")
    for feature in COLUMN_FEATURES:  # on facts declared in core/columns.py since m001
        parts += feature(query, cand)
    if extra:
        parts += extra
    if boosts is not None:
        parts += boost_features(boosts)
    return Scored(Score.of(parts), match)


def ceiling(query: Query, best: Boosts) -> float | None:
    """The most points any candidate can add to its match's own parts in `score`, for
    this query, with boosts no stronger than `best` (each context signal at its
    strongest where the search could give it). A match whose positive parts plus
    this cannot reach the score a page already has can leave its rows unread
    (search/layers.py). None where no bound is known here: a scoped query (its
    qualifier is decided outside) or a feature on a stored fact (COLUMN_FEATURES).
    Mirrors `score`: a feature that can add points there adds its most here (a
    Hypothesis test holds the two together)."""
    if query.scope or COLUMN_FEATURES:
        return None
    pts = max(KIND_WEIGHTS.values(), default=0.0)
    # path_features' positive parts; the rest of them, visibility, nesting and every
    # extra a search adds in an unscoped query's first layer (referenced, reopened, a
    # compiled copy) only take points away
    pts += WEIGHTS["path_name"] + WEIGHTS["path_parent"] + WEIGHTS["path_project"]
    if query.has_upper:
        pts += WEIGHTS["case"]
    if query.kind:
        pts += WEIGHTS["kind_word"]
    return pts + sum(v for _, v in boost_features(best) if v > 0)


__all__ = [
    "boost_features",
    "Boosts",
    "branch_feature",
    "Candidate",
    "case_feature",
    "ceiling",
    "COLUMN_FEATURES",
    "compiled_copy_feature",
    "referenced_feature",
    "reopened_feature",
    "constructor_feature",
    "constructor_owner_feature",
    "could_match",
    "dir_steps",
    "edit_distance",
    "enclosing_feature",
    "initials",
    "kind_feature",
    "KIND_WEIGHTS",
    "kind_word_feature",
    "match_exact_prefix",
    "match_fuzzy",
    "match_name",
    "match_typo",
    "match_typo_prefix",
    "IN_ORDER",
    "MAX_FUZZY_LEAF",
    "MIN_TYPO_LEN",
    "NameMatch",
    "nesting_feature",
    "path_features",
    "path_query_features",
    "proximity_feature",
    "PROXIMITY_MIN",
    "qualifier_feature",
    "recency_feature",
    "RECENCY_HALF_LIFE_DAYS",
    "scope_chain",
    "scope_file_feature",
    "scope_unmatched_feature",
    "score",
    "Scored",
    "shared_scope",
    "skeleton",
    "tokens",
    "TWO_EDITS_LEN",
    "typo_edits",
    "via_package_feature",
    "visibility_feature",
    "VOWELS",
    "WEIGHTS",
    "wildcard_feature",
    "word_starts",
]
