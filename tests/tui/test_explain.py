"""The explain pane's content: every feature with its value, the margin over the next result,
and a source preview that stays cheap on minified files."""

from __future__ import annotations

from pathlib import Path

from rq_engine.search.types import Hit, Score
from rq_tui.explain import PREVIEW_WIDTH, explain_content, preview_content


def hit(name: str, parts: list[tuple[str, float]], root: str = "/r", path: str = "a.py") -> Hit:
    return Hit(
        root=root, path=path, line=1, end_line=3, name=name, qualified=f"m.{name}",
        kind="function", language="python", repository="local:/r", score=Score.of(parts),
        layer="fuzzy", positions=(0, 2),
    )  # fmt: skip


def test_breakdown_lists_each_feature_and_the_margin_over_the_next() -> None:
    hits = [
        hit("refund", [("subseq", 380.0), ("kind", 30.0), ("path_depth", -2.0)]),
        hit("render", [("subseq", 380.0), ("kind", 20.0)]),
    ]
    text = explain_content(hits, 0).plain
    assert "score 408.00" in text
    assert "+8.00 over #2" in text  # 408 - 400
    for feature, value in (("subseq", "+380.00"), ("kind", "+30.00"), ("path_depth", "-2.00")):
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(feature))
        assert line.rstrip().endswith(value)
    last = explain_content(hits, 1).plain
    assert "(last result)" in last and "score 400.00" in last


def test_preview_shows_the_definition_with_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def refund(x):\n    return x\n\nother = 1\n")
    text = preview_content(hit("refund", [("exact", 1.0)], root=str(tmp_path))).plain
    assert text.splitlines() == ["1 def refund(x):", "2     return x"]  # line 3 is blank


def test_preview_cuts_minified_lines(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("function ht(a){" + "a+=1;" * 40_000 + "}\n")
    h = hit("ht", [("exact", 1.0)], root=str(tmp_path), path="a.js")
    text = preview_content(h).plain
    assert len(text.splitlines()[0]) <= PREVIEW_WIDTH + 4  # gutter + the ellipsis
    assert text.splitlines()[0].endswith("…")


def test_preview_of_an_unreadable_file_says_so(tmp_path: Path) -> None:
    text = preview_content(hit("gone", [("exact", 1.0)], root=str(tmp_path))).plain
    assert text.startswith("cannot read ") and "a.py" in text
