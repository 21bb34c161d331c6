"""The key help: a modal listing every picker key; any of esc, ?, F1, q closes it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("type", "search; every keystroke re-queries"),
    ("↑ ↓  ctrl-p ctrl-n", "move the selection"),
    ("pgup pgdn  home end", "move a page / to the first or last result"),
    ("enter", "open the selection in $VISUAL / $EDITOR (or print it with --print)"),
    ("double click", "open the clicked result (a single click selects)"),
    ("tab", "show or hide the explain pane"),
    ("ctrl-a", "search all repositories / only this one"),
    ("ctrl-y", "copy path:line (OSC 52)"),
    ("esc  ctrl-c", "quit without output (exit 130)"),
    ("?  F1", "this help (? on an empty query; F1 always)"),
)


def help_content() -> Content:
    width = max(len(k) for k, _ in KEYS)
    rows = [Content.styled("rq picker keys", "bold $text-primary"), Content("")]
    rows += [Content.assemble((k.ljust(width), "bold $text-accent"), "  ", v) for k, v in KEYS]
    rows += [Content(""), Content.styled("esc, ?, F1 or q closes this", "$text-muted")]
    return Content("\n").join(rows)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,f1,q,ctrl+c", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(help_content(), id="help-body")

    def action_close(self) -> None:
        self.dismiss()
