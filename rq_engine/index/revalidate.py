"""The files behind results about to be shown: stat'ed against the index, reindexed if moved.

What search/validate.py does for hits and text/answering.py for a text answer's
nodes: a file whose mtime or size differs from its row (or that is gone) is
reindexed alone through run_index (the one core; in-process, no fork pool) and
noted as a held edit. Imports the indexer only when a file changed.
"""

from __future__ import annotations

import os
from collections import defaultdict

from rq_engine.core.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def stale_files(
    conn: sqlite3.Connection, items: Sequence[tuple[str, str, str]]
) -> dict[tuple[str, str], list[str]]:
    """`stale` for (checkout root, repository identity, repo-relative path) triples
    (a text answer's nodes)."""
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for root, ident, path in items:
        if root:
            groups[(root, ident)].add(path)
    out: dict[tuple[str, str], list[str]] = {}
    for (root, ident), paths in groups.items():
        want = sorted(paths)
        marks = ",".join("?" * len(want))
        keys = {
            str(p): (m, s)
            for p, m, s in conn.execute(
                "SELECT f.path, f.mtime, f.size FROM files f JOIN repositories r"
                f" ON r.id = f.repository_id WHERE r.identity = ? AND f.path IN ({marks})",
                (ident, *want),
            )
        }
        moved = []
        for p in want:
            try:
                st = os.lstat(os.path.join(root, p))  # (a file now a link: moved)
                now: tuple[object, object] | None = (st.st_mtime_ns, st.st_size)
            except OSError:
                now = None
            if keys.get(p) != now:
                moved.append(p)
        if moved:
            out[(root, ident)] = moved
    return out


def refresh(conn: sqlite3.Connection, moved: dict[tuple[str, str], list[str]]) -> None:
    """Reindex the stale files (in this process, no fork) and note them as held edits,
    so the next check looks at them again. The verdict stands: an unstaged edit waits
    out the recheck window (D16), and a miss asks git anyway."""
    from pathlib import Path

    from rq_engine.core.identity import Checkout, current_branch, git_dir_of
    from rq_engine.index import fresh
    from rq_engine.index.indexer import run_index

    for (root, ident), paths in moved.items():
        if not os.path.isdir(root):
            continue  # a checkout that is gone (moved away): its repository's next warm prunes it
        r = Path(root)
        gd = git_dir_of(r)
        co = Checkout(root=r, identity=ident, branch=current_branch(gd), git_dir=gd)
        run_index(conn, co, files=paths, workers=1)
        if gd is not None:
            fresh.note_edits(conn, r, paths)


__all__ = ["refresh", "stale_files"]
