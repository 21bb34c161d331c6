"""`python -m rq_engine.text.cache IDENTITY`: build the repository's text-ranker
generation in full, detached from the query that found none, or found an overlay
grown past its bound (manager.build_detached).

Quiet and best-effort: another builder holding the lock, a read-only cache or a
repository dropped meanwhile all end it without a word; the next query serves
what exists or builds again.
"""

from __future__ import annotations

import sqlite3
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m rq_engine.text.cache IDENTITY", file=sys.stderr)
        return 64
    from rq_engine.core.errors import RqError
    from rq_engine.store import db
    from rq_engine.text.cache import manager

    try:
        conn = db.connect(readonly=True)
    except (RqError, sqlite3.Error, OSError):
        return 0
    try:
        s = manager.serve(conn, argv[0], detach=False, compact=True)
        if s.gen is not None:
            s.gen.close()
    except (RqError, sqlite3.Error, OSError):
        pass
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
