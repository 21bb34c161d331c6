"""The additive score every face renders: a total and the named parts it sums.

Built by core/scoring, carried by search's Hit; here, below both. Stdlib only.
"""

from __future__ import annotations

from rq_engine.core.record import Record


class Score(Record):
    """An additive score: `total` is exactly the sum of `parts` (feature name, contribution).

    `parts` is in display order; `--explain`, the picker's side pane and MCP all
    render this same tuple.
    """

    __slots__ = ("total", "parts")
    total: float
    parts: tuple[tuple[str, float], ...]

    def __init__(self, total: float, parts: tuple[tuple[str, float], ...]) -> None:
        self.total = total
        self.parts = parts

    @staticmethod
    def of(parts: list[tuple[str, float]]) -> Score:
        return Score(total=sum(v for _, v in parts), parts=tuple(parts))


__all__ = ["Score"]
