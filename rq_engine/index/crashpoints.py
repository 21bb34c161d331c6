"""Named points of an indexing pass where a test kills or stops the real process.

`RQ_INDEX_KILL_AT=<phase>[:<n>]` makes the process SIGKILL itself the n-th time it
reaches <phase> (the first when n is left out); `RQ_INDEX_STOP_AT` sends SIGSTOP
instead, so a test can act between two phases of a live pass and SIGCONT it.
Tests kill a real `rq --index`, `rq --warm` or parse worker at a known point this
way, rather than patching the indexer or racing a clock (the text cache's
`RQ_TEXT_CACHE_KILL_AT` does the same for its builder). The phases:

    walked           the walk is read and compared with the index; nothing of the
                     pass is written yet but its repository and checkout rows
    batch-written    a batch's rows are written, its transaction not committed
    batch-committed  a batch committed (a per-row pass: its names not yet drained)
    finished         the pass committed its coverage; nothing more is written
    verdict          a warmer is about to record its verdict (index/fresh.py)
    worker           a parse worker took a chunk, before parsing it; n counts the
                     chunks of each worker (`worker` alone: every worker dies)
    chunk            the parse worker holding the pass's n-th chunk, before parsing
                     it (one worker dies)

The variables are read once, when this module is imported: unset, a phase costs one
global read. Nothing on a query's hot path imports it (the indexer is not imported
there). Stdlib only.
"""

from __future__ import annotations

import os


def _plan(var: str) -> tuple[str, int] | None:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return None
    name, _, n = raw.partition(":")
    return name, int(n) if n.isdigit() and int(n) > 0 else 1


_KILL = _plan("RQ_INDEX_KILL_AT")
_STOP = _plan("RQ_INDEX_STOP_AT")
_ARMED = _KILL is not None or _STOP is not None
_reached: dict[str, int] = {}  # phase -> times this process reached it


def phase(name: str, number: int | None = None) -> None:
    """This process reached `name`: its `number`-th occurrence (given, as a chunk's
    number is, or counted here). Kills or stops the process when a variable names it."""
    if not _ARMED:
        return
    if number is None:
        number = _reached[name] = _reached.get(name, 0) + 1
    import signal

    if _STOP == (name, number):
        os.kill(os.getpid(), signal.SIGSTOP)
    if _KILL == (name, number):
        os.kill(os.getpid(), signal.SIGKILL)
