"""rq's one voice on stderr: `rq: <message>`, one line, control characters made visible.

Every command's notes and errors go through `say`, so each starts with the `rq:`
prefix a user greps for, and a path or name the repository chose (an ESC, a
newline) cannot drive the terminal or forge a second line. Stdlib only: it runs on
the `rq -q` hot path.
"""

from __future__ import annotations

import sys

from rq_engine.core.escape import visible


def say(msg: str) -> None:
    """Write `rq: msg` to stderr (msg shown through `visible`)."""
    print(f"rq: {visible(msg)}", file=sys.stderr)
