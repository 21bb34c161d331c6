"""`rq --warm ROOT` (internal): the detached warmer a search hands leftover indexing to.

Started by rq_engine.index.warm.hand_off in its own session with null stdio;
nobody reads its output or waits for it. Errors end it quietly with a code.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rq_engine.core.errors import ExitCode, RqError


def run(ns: argparse.Namespace) -> int:
    import sqlite3

    from rq_engine.index.warm import run_child

    root = Path(ns.warm).expanduser()
    if not root.is_dir():
        raise RqError(f"--warm {ns.warm}: not a directory", ExitCode.USAGE)
    try:
        return run_child(root.resolve())
    except sqlite3.Error as e:
        raise RqError(f"warm {root}: index error: {e}", ExitCode.IOERR) from e
