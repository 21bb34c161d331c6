"""What a miss on a complete index says about the files rq does not read: one coverage row.

A miss never claims absence in a language rq has no plugin for, and a repository
holding no file rq reads is "nothing here rq reads" (exit 3), not "no match"
(exit 1). `miss_verdict` is that decision and its words for every face that
ends in a miss (`rq --text`, and `rq -q` through QueryService). Whether a file rq reads is held comes from what every pass keeps
current (the files indexed, skipped or failed now), not from the last full pass:
a `.py` added or removed and caught up by a query decides at once. The tally of
files not read is the last full pass's. Read on a miss only; stdlib + lang/unread.
"""

from __future__ import annotations

from rq_engine.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3


class Verdict(Record):
    """`outcome`: miss (files rq reads are held) or unread (none are); `note`: what is not
    read, in lang/unread.py's words ('' when nothing); `not_read`: ((language, files),
    ...), most first, as `rq -q --json`'s `not_read` carries them."""

    outcome: str
    note: str
    not_read: tuple[tuple[str, int], ...]


def miss_verdict(conn: sqlite3.Connection, repo_id: int) -> Verdict:
    """The verdict of a miss on the complete index of repository `repo_id`."""
    row = conn.execute(
        "SELECT coalesce(files_indexed, 0) + coalesce(files_skipped, 0)"
        " + coalesce(files_failed, 0), files_unread FROM coverage"
        " WHERE repository_id = ? AND scope = 'full'",
        (repo_id,),
    ).fetchone()
    if row is None:
        return Verdict("miss", "", ())
    from rq_engine.lang import unread

    counts = unread.decode(row[1])
    not_read = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    said = unread.summary(counts)
    if int(row[0]):
        return Verdict("miss", said, not_read)
    why = f"{said}: rq has no plugin for them" if said else "no source file of a language rq reads"
    return Verdict("unread", f"nothing here rq reads ({why})", not_read)


__all__ = ["Verdict", "miss_verdict"]
