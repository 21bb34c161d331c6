"""The live result list: one row per hit, drawn line by line from cached strips.

A Line-API ScrollView rather than an OptionList: a keystroke replaces up to 50
rows, and OptionList turns each into styled Content and wraps it before the
frame (~8-15 ms a frame for 120 columns on this machine); here a row is a few
Segments built once per batch and a visible line is a cached Strip (~1 ms a
frame). Colours come from the component classes below, styled in
themes/rq.tcss with theme variables only.
"""

from __future__ import annotations

from collections.abc import Callable

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
from rq_tui.rows import Cell, column_widths, row_cells
from rq_tui.widgets import hit_key, location, short_repository

STRIP_CACHE = 512  # rendered rows kept, keyed by content (a few batches' worth)


class ResultList(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {
        "results--repo",
        "results--path",
        "results--kind",
        "results--name",
        "results--match",
        "results--muted",
        "results--cursor",
        "results--mark",
    }
    # (here, not in themes/: the mark came after the theme files; theme variables only)
    DEFAULT_CSS = """
    ResultList > .results--mark {
        color: $rq-match;
        text-style: bold;
    }
    """

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
        self._base: Style | None = None  # the widget's own style (see render_lines)
        self._width: int | None = None  # the rows' width during a paint
        # Marked hits (multi-select), in the order they were marked; kept across
        # queries, as fzf keeps its selection while the query changes.
        self.marked: dict[tuple[str, str, int, str], Hit] = {}
        self._locs: list[str] = []
        self._repos: list[str] | None = None
        self._laid_out_for = 0  # the width the rows were laid out for
        self._sized: tuple[Size, Size, Size] | None = None  # see _size_updated
        # What the rows are when they answer no typed query (the empty query's list),
        # "" otherwise; `on_heading` (the screen) shows it above the list, called as
        # the rows are replaced so both land in the same frame.
        self.heading = ""
        self.on_heading: Callable[[str], None] | None = None

    # --- content ----------------------------------------------------------

    def show_hits(
        self, hits: list[Hit], cwd: str, show_repository: bool, keep: bool, heading: str = ""
    ) -> None:
        """Replace the rows with `hits` (a batch supersedes the previous one).

        `keep`: keep the highlighted hit highlighted when it is still listed (a
        later batch of the same query); otherwise the first row is. `heading`: what
        the list is when it answers no typed query ("" for a query's answer).
        """
        self._set_heading(heading)
        previous = self.highlighted_hit if keep else None
        # With the repository column, paths are repository-relative: shorter than
        # `../../other/checkout/...`, and the column already says where they are.
        if show_repository:
            self._locs = [f"{visible(h.path)}:{h.line}" for h in hits]
            self._repos = [short_repository(h.repository) for h in hits]
        else:
            self._locs = [location(h, cwd) for h in hits]
            self._repos = None
        self.hits = list(hits)
        self._set_rows(self._layout())
        index = 0
        if previous is not None:
            target = hit_key(previous)
            index = next((i for i, h in enumerate(hits) if hit_key(h) == target), 0)
        self._set_highlight(index if hits else None)

    def _layout(self) -> list[list[Cell]]:
        width = self.scrollable_content_region.width or 10_000  # (not sized yet: no cuts)
        self._laid_out_for = width
        names = [visible(h.qualified or h.name) for h in self.hits]
        kinds = [visible(h.kind) for h in self.hits]
        widths = column_widths(self._locs, kinds, names, self._repos or [], width)
        return [
            row_cells(
                h,
                loc,
                widths,
                self._repos[i] if self._repos is not None else None,
                hit_key(h) in self.marked,
            )
            for i, (h, loc) in enumerate(zip(self.hits, self._locs, strict=True))
        ]

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # ScrollView compares the compositor's virtual size (the region's) with the rows'
        # height, which always differ: every layout pass of the screen repainted the
        # scrollbar (~2.5 ms for 36 rows) and sent a Resize. Only a new size, container
        # or row count needs that.
        seen = (size, self.virtual_size, container_size)
        if seen == self._sized:
            return False
        self._sized = seen
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self) -> None:
        # The columns follow the width: a narrower list shortens paths, not names.
        if self.hits and self.scrollable_content_region.width != self._laid_out_for:
            self._set_rows(self._layout())

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # The scrollbar a longer list brings takes a column from the rows, and no Resize
        # says so (the list's own size is the same): the rows laid out before it came
        # overflowed by that column until some later layout pass happened to redo them,
        # so the same list drew one of two ways.
        self.on_resize()

    # --- marks (multi-select) -----------------------------------------------

    def toggle_mark(self, index: int | None = None) -> None:
        i = self.highlighted if index is None else index
        if i is None or not (0 <= i < len(self.hits)):
            return
        key = hit_key(self.hits[i])
        if key in self.marked:
            del self.marked[key]
        else:
            self.marked[key] = self.hits[i]
        self._set_rows(self._layout())

    def toggle_all(self) -> None:
        keys = [hit_key(h) for h in self.hits]
        if keys and all(k in self.marked for k in keys):
            for k in keys:
                self.marked.pop(k, None)
        else:
            for k, h in zip(keys, self.hits, strict=True):
                self.marked.setdefault(k, h)
        self._set_rows(self._layout())

    def clear_marks(self) -> None:
        self.marked.clear()
        if self.hits:
            self._set_rows(self._layout())

    def picks(self) -> list[Hit]:
        """What Enter acts on: the marked hits in marking order, else the highlighted one."""
        if self.marked:
            return list(self.marked.values())
        hit = self.highlighted_hit
        return [hit] if hit is not None else []

    def show_placeholder(self, text: str) -> None:
        """No hits: one muted line (`no matches`), or nothing when `text` is empty."""
        self._set_heading("")
        self.hits = []
        self._locs, self._repos = [], None
        self._set_rows([[(text, "muted")]] if text else [])
        self._set_highlight(None)

    def _set_heading(self, heading: str) -> None:
        if heading != self.heading:
            self.heading = heading
            if self.on_heading is not None:
                self.on_heading(heading)

    def _set_rows(self, rows: list[list[Cell]]) -> None:
        old, self._rows = self._rows, rows
        self.version += 1
        if len(self._strips) > STRIP_CACHE:
            self._strips.clear()
        size = Size(self.size.width, len(rows))
        if size != self.virtual_size:
            # Not through the reactive (layout=True: a reflow of the whole screen on every
            # batch whose row count differs, ~2 ms): the rows' height changes nothing but
            # the scrollbar, which _scroll_update sizes (and shows or hides: that alone
            # asks for a layout, as the list's width changes).
            self.set_reactive(ResultList.virtual_size, size)
            self._scroll_update(size)
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
        self._base = None
        self._strips.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        # The width and base style once a paint, not once a line: rich_style walks the
        # ancestors' styles (~0.1 ms), and a keystroke repaints ~36 lines. (The base is
        # kept until the styles change, as the cached strips that bake it in are.)
        if self._base is None:
            self._base = self.rich_style
        self._width = self.scrollable_content_region.width
        try:
            return super().render_lines(crop)
        finally:
            self._width = None

    def _role_styles(self) -> dict[str, Style]:
        if self._styles is None:
            self._styles = {
                role: self.get_component_rich_style(f"results--{role}", partial=True)
                for role in ("repo", "path", "kind", "name", "match", "muted", "cursor", "mark")
            }
            self._styles[""] = Style()
        return self._styles

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_offset.y)
        width = self._width
        if width is None:  # (called outside a paint)
            width = self.scrollable_content_region.width
        base = self._base
        if base is None:
            base = self._base = self.rich_style
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
