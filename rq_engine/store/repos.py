"""Which indexed repository a working directory belongs to (read side, stdlib only).

Identity is cached by checkout root (seed): a known root answers from the
checkouts table; only an unknown one reads .git/config for its identity, so a
hit on an indexed checkout costs one indexed SELECT and no config parse.
"""

from __future__ import annotations

import os

from rq_engine.core.identity import checkout_for, git_root
from rq_engine.core.sqlite import sqlite3


def locate(
    conn: sqlite3.Connection, cwd: str | os.PathLike[str]
) -> tuple[str, int | None, str | None]:
    """(checkout root, repository id, repository identity); id and identity are None
    when the directory's repository is not indexed. The root is a str (no pathlib on
    the search hot path)."""
    found = git_root(os.fspath(cwd))
    if found is None:
        tracked = tracked_root(conn, os.path.realpath(cwd))
        if tracked is not None:
            found = tracked  # inside a directory indexed with rq --index (no git)
    root = found if found is not None else os.path.realpath(cwd)
    row = conn.execute(
        "SELECT c.repository_id, r.identity FROM checkouts c"
        " JOIN repositories r ON r.id = c.repository_id WHERE c.root_path = ?",
        (root,),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT id, identity FROM repositories WHERE identity = ?",
            (checkout_for(cwd).identity,),
        ).fetchone()
    if row is None:
        return root, None, None
    return root, int(row[0]), str(row[1])


def tracked_root(conn: sqlite3.Connection, path: str) -> str | None:
    """The indexed checkout root that is `path` or holds it (the deepest), or None: how a
    subdirectory of a non-git directory indexed with `rq --index` finds its repository.
    (A scan of `checkouts`, a handful of rows; only asked outside git.)"""
    row = conn.execute(
        "SELECT root_path FROM checkouts WHERE root_path = ?"
        " OR substr(?, 1, length(root_path) + 1) = root_path || '/'"
        " ORDER BY length(root_path) DESC LIMIT 1",
        (path, path),
    ).fetchone()
    return str(row[0]) if row else None
