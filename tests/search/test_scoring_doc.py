"""docs/scoring.md documents every weight the scorer uses, with its number."""

from __future__ import annotations

from pathlib import Path

from rq_engine.core.scoring import KIND_WEIGHTS, WEIGHTS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
# weights shown under the feature name their part carries
SHOWN_AS = {"private": "visibility", "nesting_cap": "nesting", "path_depth_cap": "path_depth"}


def test_every_weight_is_documented_with_its_number() -> None:
    for key, value in WEIGHTS.items():
        feature = SHOWN_AS.get(key, key)
        lines = [ln for ln in DOC.splitlines() if f"`{feature}`" in ln]
        assert lines, f"{feature} is not in docs/scoring.md"
        number = f"{abs(value):g}"
        assert any(number in ln for ln in lines), f"{feature}: {number} not on its line"


def test_every_kind_weight_is_documented() -> None:
    table = DOC[DOC.index("## Kind") : DOC.index("## Visibility")]
    for kind, value in KIND_WEIGHTS.items():
        row = [ln for ln in table.splitlines() if kind in ln]
        assert row and any(f"{value:g}" in ln for ln in row), kind
