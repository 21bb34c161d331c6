"""The side pane: the highlighted result's score breakdown and a highlighted preview of its source.

It renders the engine's Score.parts as they are (faces never re-rank); the
margin shown is this total minus the next result's. A text result (text mode)
shows the text ranker's own breakdown instead — lexical, structure, features,
coverage, and per term its idf, weighted tf and each field's share — the same
parts `rq --text --explain` prints. Colours are theme variables only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import cast

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from rq_engine.core.escape import visible
from rq_engine.search.types import Hit
from rq_tui.quiet import QuietStatic, QuietVertical, QuietVerticalScroll, SteadyStatic
from rq_tui.text_results import TextHit
from rq_tui.widgets import hit_key, location, name_with_matches

# The preview shows the definition's first lines; a 2,000-line class would cost
# ~40 ms to highlight for rows nobody reads.
PREVIEW_LINES = 60
PREVIEW_WIDTH = 400  # characters of a line highlighted
# The source is highlighted once the highlight has rested this long (s).
PREVIEW_DELAY = 0.06
PREVIEW_CACHE = 64  # highlighted definitions kept for moving back and forth


def _heading(hits: list[Hit], index: int, digits: int = 2) -> list[Content]:
    """`score 5.39   +3.23 over #2` and `#1 function refund_order  via text`."""
    hit = hits[index]
    total = hit.score.total
    if index + 1 < len(hits):
        margin = total - hits[index + 1].score.total
        margin_text = (f"{margin:+.{digits}f}", "$rq-positive" if margin > 0 else "$text-muted")
        over = " over #" + str(index + 2)
    else:
        margin_text, over = ("—", "$text-muted"), " (last result)"
    return [
        Content.assemble(
            ("score ", "$text-muted"),
            (f"{total:.{digits}f}", "bold"),
            "   ",
            margin_text,
            (over, "$text-muted"),
        ),  # fmt: skip
        Content.assemble(
            (f"#{index + 1} ", "$text-muted"),
            (visible(hit.kind), "$rq-kind"),
            " ",
            name_with_matches(hit),
            (f"  via {visible(hit.layer)}", "$text-muted"),
        ),
    ]


def _signed(value: float, op: str = "+") -> tuple[str, str]:
    if op == "x":
        return f"×{value:.4g}", "$rq-positive" if value > 1 else "$text-muted"
    style = "$rq-positive" if value > 0 else "$rq-negative" if value < 0 else "$text-muted"
    return f"{value:+.4f}", style


def text_explain_content(hits: list[Hit], index: int) -> Content:
    """A text result's breakdown: score = (lexical + structure + features) × features, the
    coverage, then per matched term its idf, weighted tf and contribution, each field's
    share (`field weight×count contribution`), and the children that earned structure."""
    hit = hits[index]
    assert isinstance(hit, TextHit)
    r = hit.ranked
    ex = r.explain
    lines = _heading(hits, index, digits=4)
    if hit.chain:
        lines.append(Content.styled(f"in {visible(hit.chain_text)}", "$text-muted"))
    features = ex.features if ex is not None else ()
    rows = [("lexical", _signed(r.lexical)), ("structure", _signed(r.structure))]
    rows += [(visible(f.name), _signed(f.value, f.op)) for f in features]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        lines.append(Content.assemble("  ", name.ljust(width), "  ", value))
    cover = f"  coverage {r.coverage:.0%}" + (f"   {ex.norm}" if ex is not None and ex.norm else "")
    lines.append(Content.styled(cover, "$text-muted"))
    if ex is None:
        return Content("\n").join(lines)
    for f in features:
        if f.detail:
            lines.append(Content.styled(f"  {visible(f.name)}: {visible(f.detail)}", "$text-muted"))
    if ex.terms:
        lines.append(Content.styled("terms", "bold $text-muted"))
    for t in ex.terms:
        lines.append(
            Content.assemble(
                "  ",
                (visible(t.term), "$rq-match"),
                (f"  idf {t.idf:.2f}  tf {t.tf:g}  ", "$text-muted"),
                _signed(t.contribution),
            )
        )
        fields = "  ".join(
            f"{visible(f.field)} {f.weight}×{f.count} {f.contribution:.2f}" for f in t.fields
        )
        if fields:
            lines.append(Content.styled(f"    {fields}", "$text-muted"))
    if ex.structure:
        lines.append(Content.styled("structure", "bold $text-muted"))
    for s, child in zip(ex.structure, hit.children, strict=False):
        words = ", ".join(visible(u) for u in s.units)
        lines.append(
            Content.assemble(
                "  ", _signed(s.contribution), f" {visible(child)} ", (words, "$text-muted")
            )
        )
    return Content("\n").join(lines)


# Why a row of the empty query's list (rq_tui.picker_empty) is there, by its one
# score part: those rows are listed, not ranked, so no score or margin is shown.
LISTED_BECAUSE = {
    "recent pick": "picked lately",
    "edited": "in a file edited since its last commit",
    "branch": "in a file this branch changed against its trunk",
    "committed lately": "in a file of the latest commits",
}


def listed_content(hits: list[Hit], index: int) -> Content:
    """A row of the empty query's list: what it is and why it is listed."""
    hit = hits[index]
    why = hit.score.parts[0][0] if hit.score.parts else hit.layer
    return Content("\n").join(
        [
            Content.styled("listed for the empty query, not ranked", "$text-muted"),
            Content.assemble(
                (f"#{index + 1} ", "$text-muted"),
                (visible(hit.kind), "$rq-kind"),
                " ",
                name_with_matches(hit),
            ),
            Content.styled(f"  {LISTED_BECAUSE.get(why, visible(why))}", "$text-muted"),
        ]
    )


def explain_content(hits: list[Hit], index: int) -> Content:
    """The score breakdown of hits[index]: each feature, its value, the margin over the next."""
    hit = hits[index]
    if isinstance(hit, TextHit):
        return text_explain_content(hits, index)
    if hit.layer in ("recent", "active"):
        return listed_content(hits, index)
    lines = _heading(hits, index)
    width = max((len(f) for f, _ in hit.score.parts), default=0)
    for feature, value in hit.score.parts:
        style = "$rq-positive" if value > 0 else "$rq-negative" if value < 0 else "$text-muted"
        lines.append(Content.assemble("  ", feature.ljust(width), "  ", (f"{value:+8.2f}", style)))
    return Content("\n").join(lines)


@dataclass
class PreviewReady(Message):
    key: tuple[str, str, int, str]
    content: Content = field(repr=False)


class ExplainPane(Vertical):
    """The side pane: why the highlighted result ranks where it does, and its definition."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None
        self._following: Hit | None = None
        self._shown: tuple[object, ...] | None = None
        self._explain_lines = 0
        self._previews: OrderedDict[tuple[str, str, int, str], Content] = OrderedDict()

    def compose(self) -> ComposeResult:
        # (quiet: a change of the breakdown's height, or a preview shown or blanked, is
        # one layout pass, not two)
        yield QuietStatic(id="explain")
        with QuietVertical(id="source"):
            yield SteadyStatic(id="preview-title")
            with QuietVerticalScroll(id="preview-scroll"):
                yield QuietStatic(id="preview")

    def follow(self, hits: list[Hit], index: int | None, cwd: str, version: int) -> None:
        """Show hits[index]: its score breakdown now, its source once the highlight rests.

        `version` names the list `hits` came from (ResultList.version)."""
        explain = self.query_one("#explain", Static)
        title = self.query_one("#preview-title", Static)
        hit = hits[index] if index is not None and 0 <= index < len(hits) else None
        # The picker calls this when it draws a batch and again when the list
        # reports its highlight: drawing the same thing twice costs a frame.
        shown = None if hit is None else (hit_key(hit), version, index, self.display)
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._following = hit
        if hit is None:
            explain.update("")
            title.update("", layout=False)
            self._show_source(Content(""))
            return
        body = explain_content(hits, cast(int, index))
        # Re-layout only when the breakdown's height changes (a layout pass
        # re-renders the whole screen, ~5 ms here).
        lines = body.plain.count("\n") + 1
        explain.update(body, layout=lines != self._explain_lines)
        self._explain_lines = lines
        title.update(Content.styled(location(hit, cwd), "$rq-path"), layout=False)
        cached = self._previews.get(hit_key(hit))
        if cached is not None:
            self._previews.move_to_end(hit_key(hit))
            self._show_source(cached)
        elif self.display:
            self._show_source(Content(""))
            # Highlighting holds the GIL (~5-20 ms a definition, pygments' first
            # import ~60 ms): wait until typing or scrolling pauses.
            self._timer = self.set_timer(PREVIEW_DELAY, lambda: self._highlight(hit))

    @property
    def preview_due(self) -> Hit | None:
        """The result whose source the pane is waiting to show (its highlight is due or
        running), or None when nothing is pending."""
        hit = self._following
        return hit if hit is not None and hit_key(hit) not in self._previews else None

    def hold(self) -> None:
        """A new search started: the rows shown are about to be replaced, so their
        source is not highlighted meanwhile (pygments holds the GIL ~1-20 ms, and the
        preview's layout and paint took the UI thread from the search's results: on Go
        std, 4 keystrokes in 20 highlighted a preview nobody saw). The next `follow`
        shows the breakdown and source of whatever is highlighted then."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._following = None  # (a highlight already running is kept for the cache)
        self._shown = None

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _highlight(self, hit: Hit) -> None:
        self.post_message(PreviewReady(hit_key(hit), preview_content(hit)))

    @on(PreviewReady)
    def _preview_ready(self, msg: PreviewReady) -> None:
        self._previews[msg.key] = msg.content
        while len(self._previews) > PREVIEW_CACHE:
            self._previews.popitem(last=False)
        if self._following is not None and hit_key(self._following) == msg.key:
            self._show_source(msg.content)

    def _show_source(self, content: Content) -> None:
        # Blanking the source while the next one is highlighted skips the layout
        # pass (the keystroke's frame stays small); real source re-lays out.
        self.query_one("#preview", Static).update(content, layout=bool(content.plain))
        self.query_one("#preview-scroll", VerticalScroll).scroll_home(animate=False)


def preview_content(hit: Hit) -> Content:
    """The definition's source with line numbers, highlighted with theme colours.

    Runs in a worker thread: pygments costs ~160 ms to import (prewarmed by the
    picker) and ~4 ms for 60 ordinary lines.
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
    # A minified bundle's one line can be 100 KB: highlighting it took ~350 ms
    # of CPU (django's admin JS). Nobody reads past the pane's right edge.
    # Control characters in the source (a raw ESC in a string) show as escapes: Content
    # keeps ESC, which would reach the terminal; tabs stay, the code's indentation.
    code = "\n".join(
        visible(line if len(line) <= PREVIEW_WIDTH else line[:PREVIEW_WIDTH] + "…", tabs=True)
        for line in lines[start - 1 : end]
    )
    body = highlight(code, language=hit.language or None, path=hit.path)
    gutter = len(str(end))
    out = []
    for n, line in enumerate(body.split("\n"), start=start):
        out.append(Content.assemble((f"{n:>{gutter}} ", "$text-muted"), line))
    return Content("\n").join(out)
