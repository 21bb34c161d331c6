"""`rq -q QUERY` (and `rq QUERY` piped): one-shot search, printed as data, with exit codes.

Thin: rq_engine.search.service decides the answer (freshness, warming, waiting,
validation); this module picks the wait policy, renders, and maps the outcome
to an exit code — 0 results, 1 a definitive miss (complete index), 2 a miss
while the index is incomplete (one line on stderr), 130 interrupted (Ctrl-C
prints the best partial results first). Plain `path:line  kind  qualified.name`
(colour only on a terminal without NO_COLOR), `--json` (one object: the
coverage state and the results) or `--ndjson` (one result a line, each with the
coverage state), `--explain` for the score breakdown (and, on stderr, why a
context boost did not apply); `--anchor FILE:LINE[:COL]` ranks from a place; `--vimgrep`
(`path:line:col:text`) and `--print0` (NUL-ended records) for editors and xargs;
`--open`, `--show` and `--web` hand a hit's best match to cli/openers.py.

A person at a terminal waits for a warming index as long as it takes, told
after ~500 ms what is happening, Ctrl-C being the escape; a program (a pipe,
--json, --ndjson) waits silently within RQ_WAIT_BUDGET_MS. Hot path: stdlib +
the engine's query modules only (no tree-sitter, textual, rich, mcp on a hit).
"""

from __future__ import annotations

import os
import sys
import time

from rq_engine.core.defaults import SYMBOL_LIMIT
from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.escape import visible

# `typing` costs ~2 ms to import; mypy honours a local TYPE_CHECKING the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import TextIO

    from rq_engine.core.cancel import CancelToken
    from rq_engine.search.service import Answer, Progress
    from rq_engine.search.types import Hit

# A person waiting on a warming index hears about it after this long (s).
HEADS_UP_AFTER = 0.5
_BOLD, _DIM, _CYAN, _MAG, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[36m", "\x1b[35m", "\x1b[0m"


def run(ns: argparse.Namespace) -> int:
    from rq_engine.core.cancel import CancelToken
    from rq_engine.core.sqlite import sqlite3
    from rq_engine.search.service import QueryService, Wait

    query: str = ns.query
    limit = ns.limit or SYMBOL_LIMIT
    cwd = os.getcwd()
    anchor = None
    if ns.anchor is not None:
        from rq_engine.search.anchor import Anchor

        anchor = Anchor.parse(ns.anchor, cwd)  # a bad one: one line, exit 64
    human = sys.stdout.isatty() and not (ns.json or ns.ndjson)
    svc = QueryService(cwd, all_repos=ns.all_repos, source="cli", anchor=anchor)
    cancel = CancelToken()
    heads = _HeadsUp(sys.stderr, query) if human else None
    restore = _on_sigint(cancel) if human else None
    try:
        answer = svc.answer(
            query, limit=limit, wait=Wait.for_face(ns.wait_ms, human), cancel=cancel, progress=heads
        )
    except sqlite3.DatabaseError as e:
        raise RqError(f"cannot read the index: {e}", ExitCode.IOERR) from e
    finally:
        if restore is not None:
            restore()
        if heads is not None:
            heads.clear()
    opener = None
    if (ns.open or ns.show or ns.web) and answer.hits and not answer.interrupted:
        from rq_engine.cli import openers  # --open/--show/--web: the best match; a miss is -q's

        opener = openers.act(ns, answer.hits[0], cwd)
        code = int(ExitCode.OK)
    else:
        code = _print(ns, answer, query, cwd)
    try:
        svc.finish(answer, flags=_flags(ns))  # counted after the answer is out (D13)
    finally:
        svc.close()
    return opener() if opener is not None else code


def _print(ns: argparse.Namespace, a: Answer, query: str, where: str) -> int:
    from rq_engine.core.printers import Output, printer_for

    out = sys.stdout
    records: list[dict[str, object]] = []
    lines: list[str] = []
    if ns.json or ns.ndjson:
        from rq_engine.search.render import hit_to_json

        records = [hit_to_json(h, where, ns.explain) for h in a.hits]
    elif a.hits and (ns.vimgrep or ns.print0):
        from rq_engine.search.lines import record

        lines = [record(h, where, ns.vimgrep) for h in a.hits]
    elif a.hits:
        lines = _plain(a.hits, where, out.isatty() and "NO_COLOR" not in os.environ, ns.explain)
    tail: dict[str, object] = {}
    if a.not_read:  # on a miss: files no plugin reads, so never "absent" there
        tail["not_read"] = dict(a.not_read)
    if a.outcome == "unread":
        tail["nothing_readable"] = True
    o = Output(
        {"query": query, "coverage": a.state}, records, lines, tail=tail, stream=("coverage",)
    )
    printer_for(json=ns.json, ndjson=ns.ndjson, print0=ns.print0).write(out, o)
    out.flush()
    if ns.explain and a.boost_note and a.hits:
        say(a.boost_note)  # (the parts say `branch_skipped`; this says why)
    if a.interrupted:
        if not a.hits:
            say("interrupted; nothing found yet")
        return int(ExitCode.INTERRUPTED)
    if a.outcome == "hit":
        return int(ExitCode.OK)
    if a.outcome == "miss":
        if a.note:  # the files here that no plugin reads (search/service.py)
            say(f"no match for {query!r} in the files rq reads; {a.note}")
        elif len(query.split()) > 2 and not (ns.json or ns.ndjson):
            # (a sentence, not a name's words: the text ranker reads words in code)
            import shlex

            text = shlex.quote(query.strip())
            say(
                f"no definition named {query!r}; rq --text {text} searches the code for these words"
            )
        return int(ExitCode.MISS)
    if a.outcome == "unread":
        say(f"no match for {query!r}: {a.note}")
        return int(ExitCode.UNREAD)
    say(f"no match for {query!r} yet: {a.note or 'the index is still warming'}")
    return int(ExitCode.WARMING)


def _flags(ns: argparse.Namespace) -> str:
    from rq_engine.store.usage import flags_key

    return flags_key(
        "json" if ns.json else "",
        "ndjson" if ns.ndjson else "",
        "explain" if ns.explain else "",
        "all-repos" if ns.all_repos else "",
        "anchor" if ns.anchor is not None else "",
        "no-wait" if ns.no_wait else "",
        "wait" if ns.wait is not None else "",
        "vimgrep" if ns.vimgrep else "",
        "print0" if ns.print0 else "",
        "open" if ns.open else "",
        "show" if ns.show else "",
        "web" if ns.web else "",
    )


def _on_sigint(cancel: CancelToken) -> Callable[[], None]:
    """Ctrl-C while a person waits on warming: stop indexing, print what was found.
    Installed only on this path; the previous handler comes back afterwards."""
    import signal

    old = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: object) -> None:
        if cancel.cancelled:  # a second Ctrl-C: the user means it
            signal.signal(signal.SIGINT, old)
            raise KeyboardInterrupt
        cancel.cancel()

    signal.signal(signal.SIGINT, handler)

    def restore() -> None:
        signal.signal(signal.SIGINT, old)

    return restore


class _HeadsUp:
    """The one-line "indexing…" note for a person: after HEADS_UP_AFTER, redrawn in
    place at most 10 times a second on a terminal, cleared once the answer is in."""

    def __init__(self, err: TextIO, query: str) -> None:
        self.err = err
        self.query = query
        self.tty = err.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if now - self.t0 < HEADS_UP_AFTER or (self.drawn and now - self.last < 0.1):
            return
        if self.drawn and not self.tty:
            return  # a file or a pipe gets the note once, not a stream of redraws
        self.last = now
        who = "indexing" if p.waiting_on == "index" else "waiting for the warmer of"
        count = f" {p.done}/{p.total} files" if p.total else ""
        line = visible(
            f"rq: {who} {p.root} for {self.query!r}…{count} (Ctrl-C shows what is found so far)"
        )
        self.err.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
        self.err.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn and self.tty:
            self.err.write("\r\x1b[K")
            self.err.flush()


def _plain(hits: list[Hit], cwd: str, colour: bool, explain: bool) -> list[str]:
    """One line a result. Paths and names are the repository's data: shown through
    `visible`, so an ESC in a file name reaches no terminal and a newline in one
    cannot start a line of its own (a forged result); --json keeps them exact."""
    from rq_engine.search.render import display_path

    lines: list[str] = []
    for h in hits:
        loc = f"{visible(display_path(h, cwd))}:{h.line}"
        if colour:
            lines.append(f"{_CYAN}{loc}{_RESET}  {_DIM}{visible(h.kind)}{_RESET}  {_highlight(h)}")
        else:
            lines.append(f"{loc}  {visible(h.kind)}  {visible(h.qualified)}")
        if explain:
            for feat, val in h.score.parts:
                lines.append(f"    {feat:<18} {val:+8.1f}")
            lines.append(f"    {'total':<18} {h.score.total:+8.1f}")
    return lines


def _highlight(h: Hit) -> str:
    """The qualified name with the matched letters of the leaf in bold magenta."""
    from rq_engine.search.render import matched_runs

    return "".join(f"{_BOLD}{_MAG}{t}{_RESET}" if m else t for t, m in matched_runs(h))
