"""The key help: a modal listing every picker key as bound (defaults + RQ_BIND); esc, F1 or q closes it."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from rq_tui import keys

MOUSE = (("click / double click", "select / open a result"),)


def help_content(rows: Sequence[tuple[str, str]]) -> Content:
    rows = [("type", "search; every keystroke re-queries"), *rows, *MOUSE]
    width = min(max(len(k) for k, _ in rows), 28)
    lines = [Content.styled("rq picker keys (fzf's)", "bold $text-primary"), Content("")]
    lines += [Content.assemble((k.ljust(width), "bold $text-accent"), "  ", v) for k, v in rows]
    lines += [
        Content(""),
        Content.styled("RQ_BIND='key:action,…' rebinds (docs/guide.md)", "$text-muted"),
        Content.styled("esc, F1 or q closes this", "$text-muted"),
    ]
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    # (the list outgrew a 24-row terminal: it scrolls)
    DEFAULT_CSS = """
    HelpScreen #help { max-height: 100%; }
    HelpScreen #help > VerticalScroll { width: auto; height: auto; max-height: 100%; }
    """
    BINDINGS = [
        Binding("escape,f1,q,ctrl+c,ctrl+g", "close", "Close", show=False),
    ]

    def __init__(self, rows: Sequence[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.rows = rows if rows is not None else keys.help_rows(keys.keymap({})[1])

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            with VerticalScroll():
                yield Static(help_content(self.rows), id="help-body")

    def action_close(self) -> None:
        self.dismiss()
