"""The empty query's list: the definitions in the files the developer is working on, newest file first.

An empty query has nothing to rank. fzf lists everything; a symbol index can do
better and list where the work is. The active files of the checkout holding
the working directory, in this order:

1. being worked on, newest mtime first: "branch", what a feature branch changed
   against its trunk, committed or not (search/branch.py: its cached, budgeted
   answer; nothing is forked on the trunk), and "edited", what git last called
   dirty or untracked plus the edits searches took in since (the index's held
   files, index/fresh.py: one meta row, no fork);
2. "committed lately": the files of the latest commits (files.commit_time, which
   the index keeps for the last COMMIT_WINDOW_DAYS), newest first, then by path,
   so a clean trunk still lists where work happened lately.

Before the list is built, those files are stat'ed against the index and a moved
one is reindexed (search/validate.py), as a typed query's results are: an edit
made since the last warm shows its new definitions, and — held from then on —
its file comes first. Each file's definitions come in line order, as an outline.

The hits carry no ranking: their score is 0 and its one part says why the file
is listed ("edited", "branch", "committed lately"); their layer is "active".
Stdlib and rq_engine only (no textual, rich, tree-sitter): `rq -q` never loads
this, a face asks it for an empty query.
"""

from __future__ import annotations

import os
import sqlite3

from rq_engine.core.identity import git_dir
from rq_engine.index import fresh
from rq_engine.lang.registry import qualify
from rq_engine.search import branch, validate
from rq_engine.search.types import Hit, Score
from rq_engine.store.repos import locate

# Files listed at most; with ~10-40 definitions a file, enough to fill a screen or
# three without turning the list into the whole repository.
ACTIVE_FILES = 12
# Definitions listed at most (a few generated files could otherwise hold thousands).
ACTIVE_ROWS = 300
# The reason of each tier, as the hit's one score part (the side pane shows it).
EDITED = "edited"
BRANCH = "branch"
COMMITTED = "committed lately"


def active_files(
    conn: sqlite3.Connection, root: str, repo_id: int, *, files: int = ACTIVE_FILES
) -> list[tuple[str, str]]:
    """(repo-relative path, why) of the active files the index holds, in list order:
    edited (branch or held) files by mtime, newest first, then the files of the latest
    commits. No fork on the trunk; on a branch, at most RQ_BRANCH_BUDGET_MS waiting
    for git the first time (search/branch.py)."""
    why: dict[str, str] = {}
    bf = branch.probe(root, git_dir(root)).result()
    if bf.state == "on":  # (its uncommitted files too: the branch's work, whatever state)
        why.update((path, BRANCH) for path in bf.files)
    # (fresh's reader of its own meta row: the held files' format lives there alone)
    for path in fresh.held_files(conn, root):
        why.setdefault(path, EDITED)
    edited: list[tuple[int, str]] = []
    if why:
        indexed = _indexed(conn, repo_id, list(why))
        for path in indexed:
            try:
                mtime = os.stat(os.path.join(root, path)).st_mtime_ns
            except OSError:
                continue  # deleted since: nothing of it to list
            edited.append((mtime, path))
    edited.sort(key=lambda e: (-e[0], e[1]))
    out = [(path, why[path]) for _, path in edited[:files]]
    if len(out) < files:
        taken = {p for p, _ in out}
        for path, _when in conn.execute(
            "SELECT path, commit_time FROM files WHERE repository_id = ?"
            " AND commit_time IS NOT NULL AND language IS NOT NULL"
            " ORDER BY commit_time DESC, path LIMIT ?",
            (repo_id, files + len(taken)),
        ):
            if str(path) not in taken and len(out) < files:
                out.append((str(path), COMMITTED))
    return out


def _indexed(conn: sqlite3.Connection, repo_id: int, paths: list[str]) -> list[str]:
    """Those of `paths` the index holds a file row for (in chunks: SQLite's variable
    limit; a long-lived branch may have changed thousands of files)."""
    out: list[str] = []
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        marks = ",".join("?" * len(chunk))
        out += [
            str(r[0])
            for r in conn.execute(
                f"SELECT path FROM files WHERE repository_id = ? AND language IS NOT NULL"
                f" AND path IN ({marks})",
                (repo_id, *chunk),
            )
        ]
    return out


def active_definitions(
    conn: sqlite3.Connection,
    cwd: str | os.PathLike[str],
    *,
    files: int = ACTIVE_FILES,
    rows: int = ACTIVE_ROWS,
) -> list[Hit]:
    """The definitions of the active files of the checkout holding `cwd`, file by file
    in list order (active_files), each file's in line order; at most `rows`. Empty when
    the directory's repository is not indexed."""
    root, repo_id, identity = locate(conn, cwd)
    if repo_id is None or identity is None:
        return []
    listed = active_files(conn, root, repo_id, files=files)
    moved = validate.stale_files(conn, [(root, identity, p) for p, _ in listed])
    if moved:
        validate.refresh(conn, moved)  # (held from now on: the list is asked again)
        listed = active_files(conn, root, repo_id, files=files)
    return _definitions(conn, root, repo_id, identity, listed, rows)


def _definitions(
    conn: sqlite3.Connection,
    root: str,
    repo_id: int,
    identity: str,
    listed: list[tuple[str, str]],
    rows: int,
) -> list[Hit]:
    if not listed:
        return []
    marks = ",".join("?" * len(listed))
    ids = {
        str(path): int(fid)
        for fid, path in conn.execute(
            f"SELECT id, path FROM files WHERE repository_id = ? AND path IN ({marks})",
            (repo_id, *(p for p, _ in listed)),
        )
    }
    out: list[Hit] = []
    for path, why in listed:
        fid = ids.get(path)
        if fid is None or len(out) >= rows:
            continue
        # file by file, each cut at what is left: a generated file's thousands of rows
        # are never read whole (ordered by line in SQLite: ~100x less Python)
        for name, kind, language, line, end_line, visibility, parent in conn.execute(
            "SELECT name, kind, language, line, end_line, visibility, parent FROM symbols"
            " WHERE file_id = ? ORDER BY line, id LIMIT ?",
            (fid, rows - len(out)),
        ):
            out.append(
                Hit(
                    root=root,
                    path=path,
                    line=line,
                    end_line=end_line,
                    name=name,
                    qualified=qualify(language, parent, name, kind),
                    kind=kind,
                    language=language,
                    repository=identity,
                    score=Score(0.0, ((why, 0.0),)),
                    layer="active",
                    visibility=visibility,
                    parent=parent,
                )
            )
    return out


__all__ = ["ACTIVE_FILES", "ACTIVE_ROWS", "active_definitions", "active_files"]
