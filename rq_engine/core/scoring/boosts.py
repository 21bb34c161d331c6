"""The context boosts (D18): what the search layer knows about a candidate beside its
match — how recently its file was touched, the repository searched from, the
feature branch's files, the anchor a query is asked from — as one `Boosts` value,
and the features that turn it into parts. Facts in, points out: the weights are in
weights.py. Stdlib only.
"""

from __future__ import annotations

from rq_engine.core.record import Record
from rq_engine.core.scoring.features import scope_chain
from rq_engine.core.scoring.weights import PROXIMITY_MIN, RECENCY_HALF_LIFE_DAYS, WEIGHTS


class Boosts(Record):
    """Context-dependent signals the search layer computes for one candidate.

    A new signal is a new field here, never a new parameter of `score()`; each
    becomes a named part of the breakdown. Facts, not points: the weights stay in
    WEIGHTS, so tuning one never touches the search layer.
    """

    __slots__ = ("age_days", "current_repo", "branch", "enclosing", "anchor_file", "anchor_steps")
    age_days: float | None  # days since the file was last modified or committed; None: unknown
    current_repo: bool  # in the repository searched from while others are searched too
    # "file": the branch changed this file; "dir": one beside it; "skipped": the branch's
    # files were not known in time (a slow git); "": trunk, no git, or untouched
    branch: str
    enclosing: int  # scope levels the parent shares with the anchor's definition (D18)
    anchor_file: bool  # in the anchor's own file
    anchor_steps: int | None  # directory steps from the anchor's directory; None: not its repo

    def __init__(
        self,
        age_days: float | None = None,
        current_repo: bool = False,
        branch: str = "",
        enclosing: int = 0,
        anchor_file: bool = False,
        anchor_steps: int | None = None,
    ) -> None:
        self.age_days = age_days
        self.current_repo = current_repo
        self.branch = branch
        self.enclosing = enclosing
        self.anchor_file = anchor_file
        self.anchor_steps = anchor_steps


def boost_features(boosts: Boosts) -> list[tuple[str, float]]:
    """Every context boost's parts, in display order."""
    out = recency_feature(boosts.age_days)
    if boosts.current_repo:
        out.append(("current_repo", WEIGHTS["current_repo"]))
    out += branch_feature(boosts.branch)
    out += enclosing_feature(boosts.enclosing)
    out += proximity_feature(boosts.anchor_file, boosts.anchor_steps)
    return out


def recency_feature(age_days: float | None) -> list[tuple[str, float]]:
    """WEIGHTS × ½^(age / half-life), shown from 0.1."""
    if age_days is None:
        return []
    age = max(age_days, 0.0)  # a clock behind the file's is "now"
    v = round(WEIGHTS["recency"] * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS), 1)
    return [("recency", v)] if v > 0 else []


def branch_feature(branch: str) -> list[tuple[str, float]]:
    """A file the feature branch changed, or one beside it; `branch_skipped` (0) says
    the branch's files were not known in time, so no result got the boost."""
    if branch == "file":
        return [("branch", WEIGHTS["branch"])]
    if branch == "dir":
        return [("branch_dir", WEIGHTS["branch_dir"])]
    if branch == "skipped":
        return [("branch_skipped", 0.0)]
    return []


def enclosing_feature(levels: int) -> list[tuple[str, float]]:
    """60 per scope level the candidate's parent shares with the anchor's, at most 180."""
    if levels <= 0:
        return []
    return [("enclosing", min(WEIGHTS["enclosing"] * levels, WEIGHTS["enclosing_cap"]))]


def proximity_feature(same_file: bool, steps: int | None) -> list[tuple[str, float]]:
    """90 in the anchor's file; else 60 in its directory, halving per directory step,
    dropped below PROXIMITY_MIN."""
    if same_file:
        return [("proximity", WEIGHTS["proximity_file"])]
    if steps is None:
        return []
    v = WEIGHTS["proximity_dir"] / 2**steps
    return [("proximity", round(v, 1))] if v >= PROXIMITY_MIN else []


def shared_scope(parent: str | None, chain: tuple[str, ...]) -> int:
    """How many levels of `chain` (the anchor's scope) the candidate's parent is: its
    whole parent chain must be a leading run of it (`A` in `A.foo`: 1; `B`: 0)."""
    mine = scope_chain(parent)
    if not mine or len(mine) > len(chain):
        return 0
    return len(mine) if tuple(mine) == chain[: len(mine)] else 0


def dir_steps(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """Directory steps between two directories given as their components: up from `a`
    to the deepest common one, then down to `b`."""
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return len(a) - common + len(b) - common
