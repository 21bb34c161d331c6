"""The picker's small widgets and row helpers: the query line, the status line, locations.

They render engine result objects (rq_engine.search.types.Hit) and never
re-rank them. Colours come only from theme variables ($rq-match, $rq-path, ...)
so every palette in themes/ applies. The result list is rq_tui.results, the
side pane rq_tui.explain.
"""

from __future__ import annotations

import os

from textual.content import Content
from textual.widgets import Input, Static

from rq_engine.core.escape import visible, visible_spans
from rq_engine.search.render import display_path
from rq_engine.search.types import Hit

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
    """The query line. On an empty query `?` is the help key, not a letter: Ruby
    names end in `?` (`empty?`), so once something is typed it is text again."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?" and not self.value:
            return False
        return super().check_consume_key(key, character)


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
        repository = visible(repository) if repository else repository
        note = visible(note)  # (a note may name a path)
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
        self.update(Content.assemble(*parts), layout=False)  # always one line
