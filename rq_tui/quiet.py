"""Textual widgets that ask for no frame and no paint they do not need (the side pane's parts).

A screen layout pass ends by handing each widget whose size or virtual size changed
its new sizes (Widget._size_updated), and Widget sets the virtual size through its
reactive, which is declared `layout=True`: the pass itself asks for a second layout
pass of the whole screen, and a repaint of every such widget, in the next frame. The
second pass lays out exactly what the first did (the sizes it hands over are the
ones it just computed). In the picker that happened whenever the explain breakdown
changed height, about one keystroke in three on the Linux tree, and whenever a
preview was shown or a shown one blanked (most keystrokes at a typist's pace, when
the preview has time to appear between them): ~2 ms of the UI thread for a frame
that changed no pixel, often landing in the next keystroke's.
These set the virtual size quietly instead, as Textual itself does on its scrolling
path (layout=False); a widget whose scrollbars appear or vanish still asks for its
layout, through its own scrollbar reactives. (ResultList does the same in its own
`_size_updated`.)

The same change of height moves the source pane below the breakdown, and a widget
whose size changes throws away its painted lines: the two containers there (#source,
#preview-scroll), ~55 lines that are only their background, were painted again on
those keystrokes, as many lines as the result list itself. A container that draws
nothing but its background (no border or padding above or below) paints the same line
at any height, so when only its height changes it keeps them; the compositor still
repaints the screen regions that moved, from those lines.

And a keystroke re-sends the side pane and the status line what they may already show
(a blank preview over a blank one, in 228 keystrokes of 241 on the Linux tree; the
same result's location, 98 of 240): SteadyStatic takes the same content again as no
change, where Static.update repaints (~0.3-0.6 ms a Static, for the same cells).

(The mixins are no DOMNode: Textual takes a class's CSS, and its type for selectors,
from the first DOMNode among its bases, so the widget's own class must stay that.)
"""

from __future__ import annotations

from typing import cast

from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Region, Size
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static


class _SettledSize:
    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        settle = cast(Widget, super())._size_updated
        return settle(size, virtual_size, container_size, layout=False)


class _Backdrop(_SettledSize):
    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        widget = cast(Widget, self)
        gutter = widget.styles.gutter
        was = widget.outer_size
        if size.width == was.width and not (gutter.top or gutter.bottom):
            # (so Widget._size_updated sees no new size: no _set_dirty, which would
            # clear the painted lines; the virtual and container sizes still update)
            widget._size = size
            if size.height > was.height:  # the lines it grew by, painted as a fresh one
                widget._set_dirty(Region(0, was.height, size.width, size.height - was.height))
        return super()._size_updated(size, virtual_size, container_size, layout)


class SteadyStatic(Static):
    """A Static that takes the content it already shows as no change (no repaint)."""

    _shown: object = None  # what the last update showed, as _same_as compares it

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        shown = _same_as(content)
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        super().update(content, layout=layout)


def _same_as(content: VisualType) -> object:
    """What two contents that draw alike have in common: a Content's text and spans
    (Content's own == compares the text only), a string; None for anything else."""
    if isinstance(content, Content):
        return (content.plain, tuple(content.spans))
    if isinstance(content, str):
        return content
    return None


class QuietStatic(_SettledSize, SteadyStatic):
    pass


class QuietVertical(_Backdrop, Vertical):
    """A container that only draws its background (see _Backdrop)."""


class QuietVerticalScroll(_Backdrop, VerticalScroll):
    """A scrolling container that only draws its background (see _Backdrop)."""
