"""The picker's text mode answer: the text query service's TextAnswer as rows the list already handles.

No textual or rich here: the session builds these in its worker thread. The
ranking is the service's (`rq_engine.text.service.query_live`, the one `rq
--text` calls), never re-ranked: each ranked node becomes a TextHit — a Hit, so
Enter, --print, the marks and the recent picks act on it exactly as on a symbol
result — that also carries its `Ranked` (the explain pane renders its parts) and
its chain of containers (the row shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rq_engine.search.types import Hit, Score

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rq_engine.text.graph import Node
    from rq_engine.text.query import Ranked
    from rq_engine.text.service import TextAnswer

# The ranker the picker's text mode asks for: the persisted, exactly maintained
# cache serves it (an exact hit costs a few ms on the fixture; docs/text-ranking.md).
PROFILE = "text-ranker/bm25-v1"
LAYER = "text"  # Hit.layer of a text result (the explain pane says "via text")


class TextHit(Hit):
    """A text result: a Hit plus the ranker's `Ranked` (score parts) and the node's containers."""

    # Written by hand: Hit's fields come from a Hit. Equality, hashing and the repr
    # read Hit's fields and these (core/record's `_fields`): the ranker's parts count.
    __slots__ = ("ranked", "chain", "children")

    def __init__(
        self, hit: Hit, ranked: Ranked, chain: tuple[str, ...], children: tuple[str, ...] = ()
    ) -> None:
        super().__init__(*(getattr(hit, n) for n in Hit.__slots__))
        self.ranked: Ranked = ranked
        # container names, outermost (the file's base name) first
        self.chain: tuple[str, ...] = chain
        # qualified name of each ranked.explain.structure child
        self.children: tuple[str, ...] = children

    @property
    def chain_text(self) -> str:
        """`refunds.py > RefundProcessor`, as `rq --text` prints it after `in:`."""
        return " > ".join(self.chain)


@dataclass
class TextResults:
    """One text query's answer, ready to draw."""

    hits: list[TextHit]
    cache: str  # how bm25-v1 was served: hit | delta | edge | rebuilt | memory | off
    cache_note: str  # why, when the cache could not serve
    no_answer: str | None  # the ranker's reason when nothing was accepted
    warming: bool  # the repository's index is not complete yet
    truncated: bool  # the candidate ceiling cut some candidates


def results_of(answer: TextAnswer, cwd: Path) -> TextResults:
    real = answer.realization
    merged = real.graph.repository == "*"  # (all repositories: IDs start with the identity)
    hits = []
    for (node, chain), ranked in zip(answer.hits, answer.ranking.results, strict=False):
        repository = node.id.split("|", 1)[0] if merged else real.graph.repository
        # A repository with no checkout on disk: the path as stored (what `rq --text`
        # prints then), resolved against the working directory.
        root = real.roots.get(repository, cwd)
        hit = _hit(node, chain, ranked, repository, root)
        hits.append(TextHit(hit, ranked, _names(chain), _children(ranked, real.graph.by_id)))
    return TextResults(
        hits=hits,
        cache=answer.cache.state,
        cache_note=answer.cache.note,
        no_answer=answer.ranking.no_answer,
        warming=bool(real.warming),
        truncated=answer.ranking.truncated,
    )


def _names(chain: list[Node]) -> tuple[str, ...]:
    return tuple(n.name for n in chain)


def _children(ranked: Ranked, by_id: Mapping[str, Node]) -> tuple[str, ...]:
    # The pinned realization holds every explained child (service.query_live).
    if ranked.explain is None:
        return ()
    return tuple(
        by_id[s.child].qualified if s.child in by_id else s.child for s in ranked.explain.structure
    )


def _hit(node: Node, chain: list[Node], ranked: Ranked, repository: str, root: Path) -> Hit:
    parent = chain[-1].qualified if chain and chain[-1].kind != "file" else None
    return Hit(
        root=str(root),
        path=node.path,
        line=node.line,
        end_line=node.end_line,
        name=node.name,
        qualified=node.qualified or node.name,
        kind=node.kind,
        language=node.language or "",
        repository=repository,
        # The text score is not a sum of parts ((lexical + structure + ...) x ...):
        # its breakdown is `ranked`, not Score.parts.
        score=Score(ranked.score, ()),
        layer=LAYER,
        parent=parent,
    )
