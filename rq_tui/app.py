"""The picker application (`rq [QUERY]` on a terminal): theme, exit protocol, editor hand-off.

Reached only through rq_engine.main's dispatcher, after the ~200 ms
textual import it defers. The engine never imports this package.

Exit protocol: the app exits with an Outcome and, once the terminal is back
in normal mode, `finish()` acts on it: print `path:line` for each pick (--print;
or the --vimgrep line, NUL-ended with --print0), start the
editor (several picks: rq_engine.core.editor.command_for_many) (the pre-check in `open_hit` keeps a missing editor from ending the
picker), or return 130 for esc/ctrl-c with nothing on stdout.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.screen import Screen
from textual.timer import Timer

from rq_engine.core import editor
from rq_engine.core.defaults import PICKER_LIMIT
from rq_engine.core.errors import ExitCode, RqError
from rq_engine.search.lines import record, vimgrep
from rq_engine.search.types import Hit
from rq_tui import keys, terminal, theming
from rq_tui.history import QueryHistory, RecentPicks
from rq_tui.picker import PickerScreen
from rq_tui.session import SearchSession

if TYPE_CHECKING:
    import argparse

    from rq_engine.search.anchor import Anchor

# With tune_gc, full collections run only once typing has paused this long (s).
IDLE_GC_AFTER = 2.0
NEVER = 10**9  # a gen-2 threshold the counters never reach


@dataclass
class Outcome:
    code: int
    printed: list[str] | None = None  # --print: the records to write to stdout, one a pick
    end: str = "\n"  # what ends each (--print0: NUL)
    command: editor.EditorCommand | None = None  # enter: the editor to start
    hits: list[Hit] | None = None


class PickerApp(App[Outcome], inherit_bindings=False):
    # No app bindings (Textual's ctrl+q is a priority one): every key goes through
    # the query line, in order; rq_tui.keys says what each does.
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = str(theming.stylesheet())
    TITLE = "rq"

    def __init__(
        self,
        *,
        cwd: Path,
        query: str = "",
        all_repos: bool = False,
        limit: int = PICKER_LIMIT,
        theme: str = theming.DEFAULT_THEME,
        print_only: bool = False,
        vimgrep: bool = False,
        print0: bool = False,
        env: Mapping[str, str] | None = None,
        db_path: Path | None = None,
        session: SearchSession | None = None,
        frozen_latency_ms: float | None = None,
        tune_gc: bool = False,
        warm: bool = True,
        anchor: Anchor | None = None,
    ) -> None:
        """`frozen_latency_ms` fixes the latency the status line shows (snapshot tests).

        `tune_gc`: the collector policy of a real run (see `run` and `on_ready`).
        `warm`: start the warmer for a repository that needs it (off: the index is
        shown exactly as it is, e.g. to picture a warming index in a snapshot).
        """
        super().__init__()
        self.tune_gc = tune_gc
        self._idle_gc: Timer | None = None
        self._gc_threshold: tuple[int, int, int] | None = None
        self.cwd = cwd
        self.env = os.environ if env is None else env
        # --vimgrep and --print0 are forms of printing: either alone prints the pick too.
        self.print_only = print_only or vimgrep or print0
        self.vimgrep = vimgrep
        self.print0 = print0
        self.session = session or SearchSession(cwd, db_path, anchor)
        keymap, by_action = keys.keymap(self.env)  # (build() has checked RQ_BIND: exit 64)
        self.key_help = keys.help_rows(by_action)
        self.history = QueryHistory()
        self.recent = RecentPicks()
        self._picker = PickerScreen(
            self.session,
            cwd=cwd,
            query=query,
            all_repos=all_repos,
            limit=limit,
            frozen_latency_ms=frozen_latency_ms,
            warm=warm,
            keymap=keymap,
            history=self.history,
            recent=self.recent,
        )
        self.register_theme(theming.load(theme, self.env))
        self.theme = theme

    def get_default_screen(self) -> Screen[None]:
        return self._picker

    def on_ready(self) -> None:
        if self.tune_gc:
            # The widget tree lives as long as the picker: out of the collector's
            # reach (O(1)). Full collections then wait for a pause in typing:
            # over a gostd typing run they cost 21 pauses of up to 165 ms.
            gc.freeze()
            self._gc_threshold = gc.get_threshold()
            young, middle, _ = self._gc_threshold
            gc.set_threshold(young, middle, NEVER)

    async def on_event(self, event: events.Event) -> None:
        if self.tune_gc and isinstance(event, events.Key):
            if self._idle_gc is not None:
                self._idle_gc.stop()
            self._idle_gc = self.set_timer(IDLE_GC_AFTER, gc.collect)
        await super().on_event(event)

    @property
    def picker(self) -> PickerScreen:
        return self._picker

    def open_hit(self, hit: Hit) -> None:
        self.open_hits([hit], "")

    def open_hits(self, hits: list[Hit], query: str) -> None:
        """Enter: print the picks (--print), one record each, or hand them to the editor."""
        cwd = str(self.cwd)
        if self.print_only:
            printed = [record(h, cwd, self.vimgrep) for h in hits]
            end = "\0" if self.print0 else "\n"
            self._remember(query, hits)
            self.exit(Outcome(int(ExitCode.OK), printed=printed, end=end, hits=hits))
            return
        try:
            picks = [(h.abspath, h.line, vimgrep(h, cwd)) for h in hits]
            cmd = editor.command_for_many(picks, self.env)
        except editor.EditorNotFound as e:
            self.notify(str(e), title="editor", severity="error", timeout=8, markup=False)
            return
        self._remember(query, hits)
        self.exit(Outcome(int(ExitCode.OK), command=cmd, hits=hits))

    def _remember(self, query: str, hits: list[Hit]) -> None:
        # Accepted queries feed alt-up/down; picks feed the empty-query list.
        self.history.add(query)
        self.recent.add(hits)

    def quit_picker(self) -> None:
        self.exit(Outcome(int(ExitCode.INTERRUPTED)))

    def on_unmount(self) -> None:
        if self._picker.tokens:
            self._picker.tokens[-1].cancel()  # stop a running search before closing its index
        self.session.finish(*self._picker.outcome())
        self.session.close()
        if self._gc_threshold is not None:  # give the process its collector back
            gc.set_threshold(*self._gc_threshold)
            gc.unfreeze()


def finish(outcome: Outcome | None, cwd: Path) -> int:
    """Act on the picker's outcome once the terminal is ours again; the exit code."""
    if outcome is None:  # the app stopped without choosing (a crash already reported)
        return int(ExitCode.INTERRUPTED)
    if outcome.printed is not None:
        sys.stdout.write("".join(p + outcome.end for p in outcome.printed))
        sys.stdout.flush()
        return outcome.code
    if outcome.command is not None:
        try:
            return editor.launch(outcome.command, cwd=str(cwd))
        except editor.EditorNotFound as e:
            raise RqError(str(e), ExitCode.IOERR) from e
    return outcome.code


def build(ns: argparse.Namespace, env: Mapping[str, str] | None = None) -> PickerApp:
    """The app for parsed arguments (the theme and RQ_BIND are checked first: exit 64)."""
    env = os.environ if env is None else env
    keys.keymap(env)  # (raises BindError, a UsageError, before the UI starts)
    anchor = None
    if ns.anchor is not None:
        from rq_engine.search.anchor import Anchor

        anchor = Anchor.parse(ns.anchor, os.getcwd())  # a bad one: one line, exit 64
    return PickerApp(
        anchor=anchor,
        cwd=Path.cwd(),
        query=ns.query or "",
        all_repos=bool(ns.all_repos),
        limit=ns.limit or PICKER_LIMIT,
        theme=theming.choose(ns.theme, env),
        print_only=bool(ns.print_only),
        vimgrep=bool(ns.vimgrep),
        print0=bool(ns.print0),
        env=env,
    )


def run(ns: argparse.Namespace) -> int:
    # A full collection scans every long-lived object: with textual's heap one
    # took 80-260 ms mid-typing here (bench/tui_latency.py). The modules loaded
    # by now are never garbage: out of its reach.
    gc.freeze()
    app = build(ns)
    app.tune_gc = True
    # Draw on and read from the controlling terminal, sized from it, whatever
    # stdout is (`x=$(rq --print)`): rq_tui.terminal.
    app.driver_class = terminal.driver_class()
    outcome = app.run()
    if app.return_code not in (None, 0) and outcome is None:
        return int(ExitCode.IOERR)
    # Textual restores the terminal before run() returns, so the editor (or the
    # shell reading --print) gets a clean tty.
    sys.stdout.flush()
    return finish(outcome, app.cwd)
