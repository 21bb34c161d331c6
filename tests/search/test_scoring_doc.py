"""docs/scoring.md documents every weight the scorer uses, with its number."""

from __future__ import annotations

import re
from pathlib import Path

from rq_engine.core.scoring import KIND_WEIGHTS, WEIGHTS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
# weights shown under the feature name their part carries
SHOWN_AS = {
    "private": "visibility",
    "nesting_cap": "nesting",
    "path_depth_cap": "path_depth",
    "via_package_level": "via_package",
    # a path query's file layer: its parts are `path` and `length`
    "path_query_file": "path",
    "path_query_suffix": "path",
    "path_query_within": "path",
    "path_query_length": "length",
}


def shows(line: str, number: str) -> bool:
    """The number stands on the line as a number of its own (5 is not in 50 or 0.5)."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", line) is not None


def test_every_weight_is_documented_with_its_number() -> None:
    for key, value in WEIGHTS.items():
        feature = SHOWN_AS.get(key, key)
        lines = [ln for ln in DOC.splitlines() if f"`{feature}`" in ln]
        assert lines, f"{feature} is not in docs/scoring.md"
        number = f"{abs(value):g}"
        assert any(shows(ln, number) for ln in lines), f"{feature}: {number} not on its line"


def test_every_kind_weight_is_documented() -> None:
    table = DOC[DOC.index("## Kind") : DOC.index("## Visibility")]
    for kind, value in KIND_WEIGHTS.items():
        row = [ln for ln in table.splitlines() if re.search(rf"`{re.escape(kind)}`|\b{kind}\b", ln)]
        assert row and any(shows(ln, f"{value:g}") for ln in row), kind


def test_the_number_check_is_exact() -> None:
    assert shows("| `prefix` | 50 |", "50") and not shows("| `prefix` | 50 |", "5")
    assert not shows("| x | 0.5 |", "5") and shows("| x | -0.5 |", "0.5")
