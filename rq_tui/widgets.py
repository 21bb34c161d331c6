"""The picker's small widgets and row helpers: the query line, the status line, locations.

They render engine result objects (rq_engine.search.types.Hit) and never
re-rank them. Colours come only from theme variables ($rq-match, $rq-path, ...)
so every palette in themes/ applies. The result list is rq_tui.results, the
side pane rq_tui.explain.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from textual import events
from textual.content import Content
from textual.geometry import Size
from textual.widgets import Input

from rq_engine.core.escape import visible, visible_spans
from rq_engine.search.render import display_path
from rq_engine.search.types import Hit
from rq_tui.quiet import SteadyStatic

# A path column wider than this stops aligning (the rest of the row shifts
# right) rather than wasting most of an 80-column terminal on padding.
MAX_PATH_COLUMN = 44


def location(hit: Hit, cwd: str) -> str:
    """`path:line` as `rq -q` prints it (the path relative to the working directory,
    its control characters as visible escapes: core/escape.py)."""
    return f"{visible(display_path(hit, cwd))}:{hit.line}"


def short_repository(identity: str) -> str:
    """`github.com/acme/shop` -> `acme/shop`; `local:/home/me/src/shop` -> `shop`
    (shown: control characters as visible escapes)."""
    if identity.startswith("local:"):
        return visible(os.path.basename(identity[len("local:") :].rstrip("/")) or identity)
    parts = identity.strip("/").split("/")
    return visible("/".join(parts[-2:]) if len(parts) >= 3 else identity)


def hit_key(hit: Hit) -> tuple[str, str, int, str]:
    return (hit.root, hit.path, hit.line, hit.qualified)


def name_with_matches(hit: Hit) -> Content:
    """The qualified name with the matched letters of its last segment styled $rq-match.

    `positions` index into `name`; the name is the tail of `qualified`. Control
    characters show as visible escapes (Content drops a few, never ESC or newline),
    the marks moved with the letters they mark.
    """
    qualified = hit.qualified or hit.name
    offset = len(qualified) - len(hit.name) if qualified.endswith(hit.name) else -1
    shown, at = visible_spans(qualified)
    content = Content(shown)
    if offset < 0:
        return content
    for p in hit.positions:
        if 0 <= p < len(hit.name):
            i = offset + p
            content = content.stylize("bold underline $rq-match", at[i], at[i + 1])
    return content


class QueryInput(Input):
    """The query line, and the one place every key of the picker is handled.

    Keys reach it in the order they were typed, through its own message queue.
    A Textual Binding would break that order: a priority binding runs in the
    app's queue before the letters still queued here (Enter acted on a stale
    query, `valid?` opened help), and a plain one runs after the key has bubbled
    back up to the app, by which time later letters were inserted (`C-u abc`
    ended empty). So keys are looked up in `keymap` here and acted on at once;
    `on_action` (the picker screen) runs the actions that are not line editing;
    any other printable key is text, and any other key is ignored.
    """

    def __init__(self, *args: object, keymap: Mapping[str, tuple[str, ...]], **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.keymap = keymap
        self.on_action: Callable[[str], None] = lambda action: None
        self.killed = ""  # what the last kill removed: `yank` inserts it
        self.frozen = False  # Enter is waiting for the query's answer: only abort acts

    async def _on_key(self, event: events.Key) -> None:
        actions = self.keymap.get(event.key)
        if self.frozen and "abort" not in (actions or ()):
            event.stop()
            event.prevent_default()
            return
        if actions is None and event.is_printable:
            return  # Input._on_key inserts it
        event.stop()
        event.prevent_default()  # (Input's own bindings never see it)
        self._restart_blink()
        for action in actions or ():
            self.run_key_action(action)

    def _watch_value(self, value: str) -> None:
        # Input sets its virtual size, a layout reactive, to the text's width on every
        # change: a reflow of the whole screen per keystroke (~2 ms on Go std, plus the
        # repaints of every widget it resizes). The query line's size never depends on
        # its text, and horizontal scrolling reads the value itself: set it quietly,
        # so Input's own assignment changes nothing.
        self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def _on_paste(self, event: events.Paste) -> None:
        if self.frozen:  # (otherwise Input._on_paste, next in the MRO, inserts it)
            event.stop()
            event.prevent_default()

    def run_key_action(self, action: str) -> None:
        edit = _EDITS.get(action)
        if edit is None:
            self.on_action(action)
            return
        if action in _KILLS:
            before, cursor = self.value, self.cursor_position
            getattr(self, edit)()
            gone = len(before) - len(self.value)
            if gone:
                start = min(cursor, self.cursor_position)
                self.killed = before[start : start + gone]
            return
        if action == "yank":
            if self.killed:
                self.insert_text_at_cursor(self.killed)
            return
        getattr(self, edit)()


# Line-editing actions -> Input's methods; the rest are the picker's.
_EDITS = {
    "beginning-of-line": "action_home",
    "end-of-line": "action_end",
    "backward-char": "action_cursor_left",
    "forward-char": "action_cursor_right",
    "backward-word": "action_cursor_left_word",
    "forward-word": "action_cursor_right_word",
    "backward-delete-char": "action_delete_left",
    "delete-char": "action_delete_right",
    "backward-kill-word": "action_delete_left_word",
    "kill-word": "action_delete_right_word",
    "unix-line-discard": "action_delete_left_all",
    "kill-line": "action_delete_right_all",
    "clear-query": "clear",
    "yank": "",
}
_KILLS = {"backward-kill-word", "kill-word", "unix-line-discard", "kill-line"}


class StatusLine(SteadyStatic):
    """repository · coverage state · [text · cache state] · result count · latency, plus notes."""

    def show(
        self,
        *,
        repository: str | None,
        state: str,
        count: int | None,
        latency_ms: float | None,
        all_repos: bool,
        note: str = "",
        marked: int = 0,
        mode: str = "",
        cache: str = "",
    ) -> None:
        """`mode`: "text" in text mode (a badge); `cache`: how its answer was served."""
        badge_style = {
            "warming": "bold $background on $rq-warming",
            "complete": "$rq-complete",
        }.get(state, "$text-muted")
        repository = visible(repository) if repository else repository
        note = visible(note)  # (a note may name a path)
        parts: list[Content | tuple[str, str] | str] = [
            (" all repositories " if all_repos else f" {repository or 'no repository'} ", "bold"),
            " ",
            (f" {state} ", badge_style),
        ]
        if mode:
            parts += [" ", (f" {mode} ", "bold $background on $accent")]
        if cache:
            parts += ["  ", (f"cache {cache}", "$text-muted")]
        if count is not None:
            parts += ["  ", (f"{count} result{'s' if count != 1 else ''}", "")]
        if marked:
            parts += ["  ", (f"{marked} marked", "bold $rq-match")]
        if latency_ms is not None:
            parts += ["  ", (f"{latency_ms:.0f} ms", "$text-muted")]
        if note:
            parts += ["  ", (note, "$text-warning")]
        parts += ["  ", ("F1 help", "$text-muted")]
        self.update(Content.assemble(*parts), layout=False)  # always one line
