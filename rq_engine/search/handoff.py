"""What a face leaves to the detached warmer once its answer is out: where it is to look, and starting it.

A hit outside the recheck window leaves "did anything else move?" to a detached
child (index/warm.py), named by a `Where`: plain strings, since building a
Checkout imports pathlib (~3 ms of a ~35 ms `rq -q`). A never-indexed, warming
or moved checkout leaves the rest of its sweep, named by its Checkout.
QueryService.finish hands either over after the face printed; `rq --text` and
the MCP tools start the warmer through `start_warmer` too. Neither raises: a
store that is busy or broken only means no warmer this time.

Loaded only when something is left to the warmer (never on a hit inside the
window), and light: a face that only starts the warmer does not load the
symbol search with it.
"""

from __future__ import annotations

from rq_engine.core.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rq_engine.core.identity import Checkout


class Where:
    """Where a detached warmer is to look: a checkout as plain strings."""

    __slots__ = ("root", "identity", "git_dir")

    def __init__(self, root: str, identity: str, git_dir: str | None) -> None:
        self.root = root
        self.identity = identity
        self.git_dir = git_dir


def leave(
    conn: sqlite3.Connection, left: Checkout | Where, checkout: Callable[[], Checkout]
) -> None:
    """Hand `left` to the warmer. A `Where` goes to the detached child as it is; with
    RQ_WARM_DETACH=0 the warming is done here, which needs the Checkout (`checkout()`)."""
    if isinstance(left, Where):
        from rq_engine.index import warm

        if warm.detached():
            try:
                warm.hand_off_detached(conn, left.root, left.identity, left.git_dir)
            except (sqlite3.Error, OSError):
                pass  # a busy or broken store only means no warmer this time
            return
        left = checkout()
    start_warmer(conn, left)


def start_warmer(conn: sqlite3.Connection, co: Checkout) -> None:
    """Hand warming to the detached child (or do it here with RQ_WARM_DETACH=0); a
    store that is busy or broken only means no warmer this time."""
    from rq_engine.index.warm import hand_off

    try:
        hand_off(conn, co)
    except (sqlite3.Error, OSError):
        pass
