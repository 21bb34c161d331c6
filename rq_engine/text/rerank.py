"""bm25-v1's second stage: structure from the pinned graph, exact spelling, navigation priors.

Reads only the lexical fields of a node (name, qualified, kind, path) and the
current realization's `contains` edges, so a changed edge changes the result
while the postings stay reusable. Every adjustment is a named `Feature` that
`--explain` prints. Stdlib + rq_engine.text only.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence

from rq_engine.core.paths import is_test_path
from rq_engine.core.query import split_scope
from rq_engine.core.record import Record
from rq_engine.text import lexical
from rq_engine.text.graph import Node
from rq_engine.text.query import Feature, TextQuery
from rq_engine.text.segment import normalize

TYPE_CHECKING = False  # `typing` costs ~2 ms on a text query's start
if TYPE_CHECKING:
    from typing import Any, Protocol

# A document's key while ranking: its stable ID in memory, its order-preserving
# integer in a persisted cache generation (rq_engine/text/cache). Both sort in
# stable-ID order, so every tie breaks the same way.
if TYPE_CHECKING:
    Key = Any
else:
    Key = object


if TYPE_CHECKING:

    class GraphView(Protocol):
        """What the rerank reads of the pinned realization: nodes and containment."""

        @property
        def by_id(self) -> Mapping[Key, Node]: ...

        @property
        def children(self) -> Mapping[Key, Sequence[Key]]: ...

        def prefetch(self, keys: Iterable[Key], parents: Iterable[Key]) -> None:
            """Make `by_id` hold `keys` and `children` hold `parents` (a store-backed
            view reads them in a few batches instead of one row at a time)."""


# Query words that name a kind: `func` asks for a function or a method.
KIND_WORDS: dict[str, frozenset[str]] = {}
for _kind, _words in lexical.KIND_TERMS.items():
    if _kind == "file":
        continue
    for _w in _words:
        KIND_WORDS[_w] = KIND_WORDS.get(_w, frozenset()) | {_kind}

# Test code (core/paths.is_test_path: the symbol scorer's rule). A described
# definition is almost never a test's (the judged queries name tests as the
# competition), so test code takes a prior unless the query itself speaks of tests.
TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs"})


class RerankProfile(Record):
    structure_weight: float  # per child-covered unit, x its IDF
    exact_weight: float  # per spelled unit, x its IDF
    derived_prior: float  # x for a compiled/declaration twin of a source definition
    test_prior: float  # x for test code
    kind_prior: float  # x for a node of another kind than the query names
    depth: int  # structure and exact are computed for this many lexical leaders


class Adjusted(Record):
    score: float
    structure: float
    gained: int  # units its children cover that it lacks
    kids: list[tuple[Key, int]]
    features: list[Feature]


class QueryShape:
    """What the second stage needs from a query, computed once per query."""

    def __init__(self, q: TextQuery) -> None:
        self.q = q
        self.kinds: frozenset[str] = frozenset()
        self.kind_mask = 0
        for i, u in enumerate(q.units):
            ks = KIND_WORDS.get(u)
            if ks:
                self.kinds |= ks
                self.kind_mask |= 1 << i
        # a query of kind words only asks for nothing else: no preference
        if self.kind_mask == q.full_mask:
            self.kinds = frozenset()
            self.kind_mask = 0
        self.mentions_tests = any(u in TEST_WORDS for u in q.units)
        self.plain_mask = q.full_mask & ~self.kind_mask  # the units that are not kind words


def _spell(comps: list[str], words: Sequence[tuple[str, int]], pos: int) -> int | None:
    """Mask of words[pos:...] spelling `comps` in order, each component by one or more
    consecutive words joined by "", "_" or "-"; None when they do not."""
    if not comps:
        return 0
    c = comps[0]
    m = 0
    for end in range(pos + 1, len(words) + 1):
        run = [w for w, _ in words[pos:end]]
        m |= words[end - 1][1]
        if sum(map(len, run)) > len(c):
            break
        if any(j.join(run) == c for j in ("", "_", "-")):
            rest = _spell(comps[1:], words, end)
            if rest is not None:
                return m | rest
    return None


def exact_mask(shape: QueryShape, qualified: str) -> tuple[int, str]:
    """Units a node spells exactly: its name, or a trailing part of its qualified name,
    written out by a contiguous run of the typed words (`Popen.communicate` for
    `popen communicate`, `send_mail` for `send mail`; not `_communicate`). Counts
    only when the run spells two or more units, or every non-kind unit: one
    common word equal to a name is no evidence the query means that node."""
    # (the scope separators the scorer splits at, core/query.split_scope; and `/`)
    comps = [
        normalize(c).casefold()
        for scope in split_scope(qualified)[0]
        for c in scope.split("/")
        if c
    ]
    words = shape.q.words
    best, how = 0, ""
    for k in range(1, len(comps) + 1):
        tail = comps[-k:]
        head = tail[0]
        for start in range(len(words)):
            # a run spelling `head` begins with its first word: skip the rest unasked
            if not head.startswith(words[start][0]):
                continue
            m = _spell(tail, words, start)
            if m is None:
                continue
            n = bin(m).count("1")
            if (n >= 2 or m & shape.plain_mask == shape.plain_mask) and n > bin(best).count("1"):
                best, how = m, (f"qualified name {qualified!r}" if k > 1 else "name")
    return best, how


class UnitWeights:
    """IDF weight of a set of query units (a bitmask), memoised: masks repeat a lot."""

    __slots__ = ("idf", "total", "_memo")

    def __init__(self, unit_idf: Sequence[float]) -> None:
        self.idf = list(unit_idf)
        self.total = sum(self.idf) or 1.0
        self._memo: dict[int, float] = {}

    def __call__(self, m: int) -> float:
        w = self._memo.get(m)
        if w is None:
            w = sum(self.idf[k] for k in range(len(self.idf)) if m >> k & 1)
            self._memo[m] = w
        return w


def adjust(
    graph: GraphView,
    shape: QueryShape,
    prof: RerankProfile,
    acc: Mapping[Key, float],
    mask: Mapping[Key, int],
    weight_of: UnitWeights,
    need: float,
    derived: Mapping[Key, str],
    explain: bool,
) -> dict[Key, Adjusted]:
    """Final scores, (lexical + structure + exact) x priors, of every candidate that can
    still be accepted: a leader (its children may add coverage) or one whose own
    units weigh at least `need`."""
    q = shape.q
    full = q.full_mask
    plain = shape.plain_mask
    leaders = {
        i for i, _ in heapq.nsmallest(prof.depth, acc.items(), key=lambda kv: (-kv[1], kv[0]))
    }
    out: dict[Key, Adjusted] = {}
    looked = [i for i in acc if i in leaders or weight_of(mask[i]) >= need]
    graph.prefetch(looked, [i for i in leaders if full & ~mask[i]])
    for i in looked:
        lex = acc[i]
        own = mask[i]
        leader = i in leaders
        node = graph.by_id.get(i)
        if node is None:
            raise KeyError(f"posting {i!r} has no node in this realization")
        feats: list[Feature] = []
        add = 0.0
        structure = 0.0
        got = 0
        kids: list[tuple[Key, int]] = []
        if leader:
            missing = full & ~own
            if missing:
                for c in graph.children.get(i, ()):
                    cm = mask.get(c, 0) & missing & ~got
                    if cm:
                        kids.append((c, cm))
                        got |= cm
                if got:
                    structure = prof.structure_weight * weight_of(got)
            # the spelled words are the node's own terms: skip what cannot qualify
            if bin(own).count("1") >= 2 or own & plain == plain:
                em, how = exact_mask(shape, node.qualified)
            else:
                em, how = 0, ""
            if em:
                bonus = prof.exact_weight * weight_of(em)
                add += bonus
                if explain:
                    words = " ".join(q.units_of(em))
                    feats.append(Feature("exact", "+", bonus, f"{how} spells {words!r}"))
        factor = 1.0
        src = derived.get(i)
        if src is not None:
            factor *= prof.derived_prior
            if explain:
                feats.append(Feature("derived", "x", prof.derived_prior, f"a copy of {src}"))
        if not shape.mentions_tests and is_test_path(node.path):
            factor *= prof.test_prior
            if explain:
                feats.append(Feature("test", "x", prof.test_prior, "test code"))
        if (
            shape.kinds
            and node.kind not in shape.kinds
            and not (_spells_kind_word(shape, i, mask, node.kind))
        ):
            factor *= prof.kind_prior
            if explain:
                asked = "/".join(sorted(shape.kinds))
                feats.append(Feature("kind", "x", prof.kind_prior, f"{node.kind}, not {asked}"))
        score = (lex + structure + add) * factor
        out[i] = Adjusted(score, structure, got, kids, feats)
    return out


def _spells_kind_word(shape: QueryShape, i: Key, mask: Mapping[Key, int], kind: str) -> bool:
    """Whether the node covers the query's kind words through its own words (a
    `ClassMethods` module for `class methods`): then the word is a name, not a kind."""
    own = mask.get(i, 0) & shape.kind_mask
    if not own:
        return False
    # the node's kind aliases cover a kind word only when the kinds agree, which
    # the caller already ruled out, so any covered kind word came from its text
    return kind not in shape.kinds
