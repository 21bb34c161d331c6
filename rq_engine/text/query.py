"""What both text rankers share: the analyzed query, ranked results, answers and their explain.

Pure data and small helpers; stdlib + rq_engine.text.lexical only.
"""

from __future__ import annotations

import math

from rq_engine.core.errors import UsageError
from rq_engine.core.record import Record, field
from rq_engine.text import lexical

#: A query is a few words; past this many distinct units it is a paragraph, and
#: a 64-bit coverage mask is what keeps per-candidate bookkeeping one int.
MAX_UNITS = 32
MAX_QUERY_CHARS = 1024


class TextQuery(Record):
    """An analyzed query. `units` are the words that must be accounted for (coverage);
    `cover` maps every scoring term (units and compounds) to the units it covers."""

    text: str
    units: tuple[str, ...]
    cover: dict[str, int]
    compact: str  # all units joined: the exact-match key (`read all` -> `readall`)
    words: tuple[tuple[str, int], ...] = ()  # each typed word (case-folded) and its units

    @property
    def full_mask(self) -> int:
        return (1 << len(self.units)) - 1

    @staticmethod
    def parse(text: str) -> TextQuery:
        if len(text) > MAX_QUERY_CHARS:
            raise UsageError(f"--text query longer than {MAX_QUERY_CHARS} characters")
        units, cover, words = lexical.query_terms(text)
        if not units:
            raise UsageError("--text needs at least one word")
        if len(units) > MAX_UNITS:
            raise UsageError(f"--text query has {len(units)} distinct words (at most {MAX_UNITS})")
        return TextQuery(text, tuple(units), cover, "".join(units), tuple(words))

    def units_of(self, mask: int) -> list[str]:
        return [u for i, u in enumerate(self.units) if mask >> i & 1]


class FieldPart(Record):
    field: str
    count: int  # occurrences of the term in the field
    weight: int  # the field's weight in the profile
    contribution: float  # this field's share of the term's score


class TermPart(Record):
    term: str
    idf: float
    tf: float  # weighted term frequency (sum of weight x count over fields)
    contribution: float
    fields: tuple[FieldPart, ...]


class StructurePart(Record):
    child: str  # stable ID of the child that matched
    units: tuple[str, ...]
    contribution: float


class Feature(Record):
    """A named adjustment on top of the lexical score: `op` is "+" (added) or "x" (multiplied)."""

    name: str
    op: str
    value: float
    detail: str


class Explain(Record):
    terms: tuple[TermPart, ...]
    structure: tuple[StructurePart, ...] = ()
    norm: str = ""  # how length normalisation read this document, for the reader
    features: tuple[Feature, ...] = ()


class Ranked(Record):
    """One ranked node: `score` = `lexical` + `structure`. `mask` = units it covers."""

    id: str
    score: float
    lexical: float
    structure: float
    mask: int
    coverage: float
    explain: Explain | None = None


class Ranking(Record):
    """A ranker's whole answer. `results` are accepted, ranked, not yet cut to a limit.

    `truncated`: the candidate ceiling refused some documents (results are then
    the best among those admitted). `no_answer`: why nothing was accepted.
    """

    profile: str
    results: list[Ranked]
    truncated: bool = False
    candidates: int = 0
    no_answer: str | None = None
    notes: list[str] = field(default_factory=list)
    total: int = 0  # accepted results before the limit


def bm25_idf(n_docs: int, df: int) -> float:
    """ln(1 + (N - df + 0.5) / (df + 0.5)): never negative, and finite for df = 0."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def popcount(mask: int) -> int:
    return bin(mask).count("1")
