"""Textual widgets that ask for no frame they do not need (the side pane's parts).

A screen layout pass ends by handing each widget whose size or virtual size changed
its new sizes (Widget._size_updated), and Widget sets the virtual size through its
reactive, which is declared `layout=True`: the pass itself asks for a second layout
pass of the whole screen, and a repaint of every such widget, in the next frame. The
second pass lays out exactly what the first did (the sizes it hands over are the
ones it just computed). In the picker that happened whenever the explain breakdown
changed height, about one keystroke in three on the Linux tree: ~2 ms of the UI
thread for a frame that changed no pixel, often landing in the next keystroke's.
These set the virtual size quietly instead, as Textual itself does on its scrolling
path (layout=False); a widget whose scrollbars appear or vanish still asks for its
layout, through its own scrollbar reactives. (ResultList does the same in its own
`_size_updated`.)

(The mixin is no DOMNode: Textual takes a class's CSS, and its type for selectors,
from the first DOMNode among its bases, so the widget's own class must stay that.)
"""

from __future__ import annotations

from typing import cast

from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static


class _SettledSize:
    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        settle = cast(Widget, super())._size_updated
        return settle(size, virtual_size, container_size, layout=False)


class QuietStatic(_SettledSize, Static):
    pass


class QuietVertical(_SettledSize, Vertical):
    pass


class QuietVerticalScroll(_SettledSize, VerticalScroll):
    pass
