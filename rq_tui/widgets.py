"""The picker's widgets: the result list, the explain pane and the status line.

They render engine result objects (rq_engine.search.types.Hit/Score) and never
re-rank them. Colours come only from theme variables ($rq-match, $rq-path, ...)
so every palette in themes/ applies.
"""

from __future__ import annotations

import os

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static

from rq_engine.search.types import Hit

# A path column wider than this stops aligning (the rest of the row shifts
# right) rather than wasting most of an 80-column terminal on padding.
MAX_PATH_COLUMN = 44
# The preview shows the definition's first lines; a 2,000-line class would cost
# ~40 ms to highlight for rows nobody reads.
PREVIEW_LINES = 60


def display_path(hit: Hit, cwd: str) -> str:
    """The path as `rq -q` prints it: relative to the working directory."""
    try:
        return os.path.relpath(hit.abspath, cwd)
    except ValueError:  # another drive (Windows)
        return hit.abspath


def location(hit: Hit, cwd: str) -> str:
    return f"{display_path(hit, cwd)}:{hit.line}"


def short_repository(identity: str) -> str:
    """`github.com/acme/shop` -> `acme/shop`; `local:/home/me/src/shop` -> `shop`."""
    if identity.startswith("local:"):
        return os.path.basename(identity[len("local:") :].rstrip("/")) or identity
    parts = identity.strip("/").split("/")
    return "/".join(parts[-2:]) if len(parts) >= 3 else identity


def hit_key(hit: Hit) -> tuple[str, str, int, str]:
    return (hit.root, hit.path, hit.line, hit.qualified)


def name_with_matches(hit: Hit) -> Content:
    """The qualified name with the matched letters of its last segment styled $rq-match.

    `positions` index into `name`; the name is the tail of `qualified`.
    """
    qualified = hit.qualified or hit.name
    offset = len(qualified) - len(hit.name) if qualified.endswith(hit.name) else -1
    content = Content(qualified)
    if offset < 0:
        return content
    for p in hit.positions:
        if 0 <= p < len(hit.name):
            content = content.stylize("bold underline $rq-match", offset + p, offset + p + 1)
    return content


class QueryInput(Input):
    """The query line. On an empty query `?` is the help key, not a letter: Ruby
    names end in `?` (`empty?`), so once something is typed it is text again."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?" and not self.value:
            return False
        return super().check_consume_key(key, character)


def explain_content(hits: list[Hit], index: int) -> Content:
    """The score breakdown of hits[index]: each feature, its value, the margin over the next."""
    hit = hits[index]
    total = hit.score.total
    if index + 1 < len(hits):
        margin = total - hits[index + 1].score.total
        margin_text = (f"{margin:+.2f}", "$rq-positive" if margin > 0 else "$text-muted")
        over = " over #" + str(index + 2)
    else:
        margin_text, over = ("—", "$text-muted"), " (last result)"
    lines: list[Content] = [
        Content.assemble(
            ("score ", "$text-muted"),
            (f"{total:.2f}", "bold"),
            "   ",
            margin_text,
            (over, "$text-muted"),
        ),  # fmt: skip
        Content.assemble(
            (f"#{index + 1} ", "$text-muted"),
            (hit.kind, "$rq-kind"),
            " ",
            name_with_matches(hit),
            (f"  via {hit.layer}", "$text-muted"),
        ),
    ]
    width = max((len(f) for f, _ in hit.score.parts), default=0)
    for feature, value in hit.score.parts:
        style = "$rq-positive" if value > 0 else "$rq-negative" if value < 0 else "$text-muted"
        lines.append(Content.assemble("  ", feature.ljust(width), "  ", (f"{value:+8.2f}", style)))
    return Content("\n").join(lines)


class ExplainPane(Vertical):
    """The side pane: why the highlighted result ranks where it does, and its definition."""

    def compose(self) -> ComposeResult:
        yield Static(id="explain")
        with Vertical(id="source"):
            yield Static(id="preview-title")
            with VerticalScroll(id="preview-scroll"):
                yield Static(id="preview")

    def show(self, hits: list[Hit], index: int | None, cwd: str) -> None:
        explain = self.query_one("#explain", Static)
        title = self.query_one("#preview-title", Static)
        if index is None or not (0 <= index < len(hits)):
            explain.update("")
            title.update("")
            return
        explain.update(explain_content(hits, index))
        title.update(Content.styled(location(hits[index], cwd), "$rq-path"))

    def show_preview(self, content: Content) -> None:
        self.query_one("#preview", Static).update(content)
        self.query_one("#preview-scroll", VerticalScroll).scroll_home(animate=False)


def preview_content(hit: Hit) -> Content:
    """The definition's source with line numbers, highlighted with theme colours.

    Runs in a worker thread: pygments costs ~60 ms to import and ~1 ms per 50 lines.
    """
    from textual.highlight import highlight

    try:
        with open(hit.abspath, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return Content.styled(f"cannot read {hit.abspath}: {e.strerror or e}", "$text-error")
    start = max(hit.line, 1)
    end = hit.end_line if hit.end_line and hit.end_line >= start else start + PREVIEW_LINES
    end = min(end, start + PREVIEW_LINES - 1, len(lines))
    code = "\n".join(lines[start - 1 : end])
    body = highlight(code, language=hit.language or None, path=hit.path)
    gutter = len(str(end))
    out = []
    for n, line in enumerate(body.split("\n"), start=start):
        out.append(Content.assemble((f"{n:>{gutter}} ", "$text-muted"), line))
    return Content("\n").join(out)


class StatusLine(Static):
    """repository · coverage state · result count · last query latency, plus notes."""

    def show(
        self,
        *,
        repository: str | None,
        state: str,
        count: int | None,
        latency_ms: float | None,
        all_repos: bool,
        note: str = "",
    ) -> None:
        badge_style = {
            "warming": "bold $background on $rq-warming",
            "complete": "$rq-complete",
        }.get(state, "$text-muted")
        parts: list[Content | tuple[str, str] | str] = [
            (" all repositories " if all_repos else f" {repository or 'no repository'} ", "bold"),
            " ",
            (f" {state} ", badge_style),
        ]
        if count is not None:
            parts += ["  ", (f"{count} result{'s' if count != 1 else ''}", "")]
        if latency_ms is not None:
            parts += ["  ", (f"{latency_ms:.0f} ms", "$text-muted")]
        if note:
            parts += ["  ", (note, "$text-warning")]
        parts += ["  ", ("? help", "$text-muted")]
        self.update(Content.assemble(*parts))
