"""The live result list: one row per hit, drawn line by line from cached strips.

A Line-API ScrollView rather than an OptionList: a keystroke replaces up to 50
rows, and OptionList turns each into styled Content and wraps it before the
frame (~8-15 ms a frame for 120 columns on this machine); here a row is a few
Segments built once per batch and a visible line is a cached Strip (~1 ms a
frame). Colours come from the component classes below, styled in
themes/rq.tcss with theme variables only.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rq_engine.core.escape import visible
from rq_engine.search.types import Hit
from rq_tui.widgets import MAX_PATH_COLUMN, hit_key, location, short_repository

Cell = tuple[str, str]  # (text, role): role is a component class suffix, "" for plain
STRIP_CACHE = 512  # rendered rows kept, keyed by content (a few batches' worth)


def row_cells(hit: Hit, loc: str, widths: tuple[int, int, int], repo: str | None) -> list[Cell]:
    """The cells of one row: `[repo]  path:line  kind  qualified` with the matched letters
    marked. `loc` and `repo` come shown (visible); the name's control characters are
    escaped here, letter by letter, so the marks stay on their letters. (Segments are
    written as they are: an ESC in one would reach the terminal.)"""
    repo_w, path_w, kind_w = widths
    cells: list[Cell] = []
    if repo is not None:
        cells += [(repo.ljust(repo_w), "repo"), ("  ", "")]
    kind = visible(hit.kind)
    cells += [(loc.ljust(path_w), "path"), ("  ", ""), (kind.ljust(kind_w), "kind"), ("  ", "")]
    qualified = hit.qualified or hit.name
    offset = len(qualified) - len(hit.name) if qualified.endswith(hit.name) else -1
    marked = {offset + p for p in hit.positions if 0 <= p < len(hit.name)} if offset >= 0 else set()
    run, run_marked = "", False
    for i, ch in enumerate(qualified):
        m = i in marked
        if run and m != run_marked:
            cells.append((run, "match" if run_marked else "name"))
            run = ""
        run, run_marked = run + (ch if ch.isprintable() else visible(ch)), m
    if run:
        cells.append((run, "match" if run_marked else "name"))
    return cells


class ResultList(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {
        "results--repo",
        "results--path",
        "results--kind",
        "results--name",
        "results--match",
        "results--muted",
        "results--cursor",
    }

    highlighted: reactive[int | None] = reactive(None)

    class Highlighted(Message):
        """The highlighted row changed (or the rows were replaced)."""

    class Open(Message):
        """A row was double-clicked: open it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: list[Hit] = []
        self.version = 0  # bumped whenever the rows are replaced
        self._rows: list[list[Cell]] = []
        self._strips: dict[tuple[tuple[Cell, ...], int, bool], Strip] = {}
        self._styles: dict[str, Style] | None = None

    # --- content ----------------------------------------------------------

    def show_hits(self, hits: list[Hit], cwd: str, show_repository: bool, keep: bool) -> None:
        """Replace the rows with `hits` (a batch supersedes the previous one).

        `keep`: keep the highlighted hit highlighted when it is still listed (a
        later batch of the same query); otherwise the first row is.
        """
        previous = self.highlighted_hit if keep else None
        # With the repository column, paths are repository-relative: shorter than
        # `../../other/checkout/...`, and the column already says where they are.
        if show_repository:
            locs = [f"{visible(h.path)}:{h.line}" for h in hits]
        else:
            locs = [location(h, cwd) for h in hits]
        repos = [short_repository(h.repository) for h in hits] if show_repository else []
        widths = (
            max((len(r) for r in repos), default=0),
            min(max((len(s) for s in locs), default=0), MAX_PATH_COLUMN),
            max((len(visible(h.kind)) for h in hits), default=0),
        )
        self.hits = list(hits)
        self._set_rows(
            [
                row_cells(h, loc, widths, repos[i] if show_repository else None)
                for i, (h, loc) in enumerate(zip(hits, locs, strict=True))
            ]
        )
        index = 0
        if previous is not None:
            target = hit_key(previous)
            index = next((i for i, h in enumerate(hits) if hit_key(h) == target), 0)
        self._set_highlight(index if hits else None)

    def show_placeholder(self, text: str) -> None:
        """No hits: one muted line (`no matches`), or nothing when `text` is empty."""
        self.hits = []
        self._set_rows([[(text, "muted")]] if text else [])
        self._set_highlight(None)

    def _set_rows(self, rows: list[list[Cell]]) -> None:
        old, self._rows = self._rows, rows
        self.version += 1
        if len(self._strips) > STRIP_CACHE:
            self._strips.clear()
        size = Size(self.size.width, len(rows))
        if size != self.virtual_size:  # a reactive with layout=True: only when it changes
            self.virtual_size = size
        if self.scroll_offset.y:
            self.scroll_to(y=0, animate=False, immediate=True)
            self.refresh()
            return
        # Repaint only the rows that changed: refining a query often keeps the
        # top rows, and every line not repainted is compositing work saved
        # (~0.2 ms a line at 120 columns).
        start = None
        for i in range(max(len(old), len(rows)) + 1):
            same = i < len(old) and i < len(rows) and old[i] == rows[i]
            if i < max(len(old), len(rows)) and not same:
                start = i if start is None else start
            elif start is not None:
                self.refresh_lines(start, i - start)
                start = None

    def _set_highlight(self, index: int | None) -> None:
        if self.highlighted == index:
            self.post_message(self.Highlighted())  # same row, new content
        self.highlighted = index

    @property
    def highlighted_hit(self) -> Hit | None:
        i = self.highlighted
        if i is None or not (0 <= i < len(self.hits)):
            return None
        return self.hits[i]

    # --- movement ---------------------------------------------------------

    def validate_highlighted(self, index: int | None) -> int | None:
        if index is None or not self.hits:
            return None
        return max(0, min(index, len(self.hits) - 1))

    def watch_highlighted(self, previous: int | None, index: int | None) -> None:
        if index is not None:
            self.scroll_to_region(Region(0, index, 1, 1), animate=False, immediate=True)
        for i in (previous, index):
            if i is not None:
                self.refresh_lines(i)
        self.post_message(self.Highlighted())

    def move(self, delta: int) -> None:
        if self.hits:
            self.highlighted = (self.highlighted or 0) + delta

    def page(self, direction: int) -> None:
        self.move(direction * max(1, self.scrollable_content_region.height - 1))

    def edge(self, last: bool) -> None:
        if self.hits:
            self.highlighted = len(self.hits) - 1 if last else 0

    async def _on_click(self, event: events.Click) -> None:
        # A click selects the row; a double click opens it.
        index = event.y + int(self.scroll_offset.y)
        if 0 <= index < len(self.hits):
            self.highlighted = index
            if event.chain >= 2:
                self.post_message(self.Open())

    # --- drawing ----------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._strips.clear()

    def _role_styles(self) -> dict[str, Style]:
        if self._styles is None:
            self._styles = {
                role: self.get_component_rich_style(f"results--{role}", partial=True)
                for role in ("repo", "path", "kind", "name", "match", "muted", "cursor")
            }
            self._styles[""] = Style()
        return self._styles

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not (0 <= index < len(self._rows)) or width <= 0:
            return Strip.blank(max(width, 0), base)
        cursor = index == self.highlighted
        cells = self._rows[index]
        key = (tuple(cells), width, cursor)
        strip = self._strips.get(key)
        if strip is None:
            styles = self._role_styles()
            row_base = base + styles["cursor"] if cursor else base
            segments = [Segment(text, row_base + styles[role]) for text, role in cells]
            strip = Strip(segments)
            if strip.cell_length > width:
                strip = Strip.join([strip.crop(0, width - 1), Strip([Segment("…", row_base)])])
            strip = strip.extend_cell_length(width, row_base)
            self._strips[key] = strip
        return strip
