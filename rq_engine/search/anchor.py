"""`--anchor FILE:LINE[:COL]`: where a query is asked from, as the scope and place the boosts read.

Two facts per candidate (seed "Scoring", anchor, D18): how many scope levels its
parent shares with the innermost definition whose `line..end_line` holds the
anchor line (`enclosing`), and how far its file is from the anchor's
(`proximity`: the same file, else directory steps). Both come from stored spans
and parents — or, when the index does not hold the anchor file's current
version (edited since, or never indexed), from a live parse of that one file —
so they are language-blind. Only the anchor's repository is boosted.

COL is accepted (editors send the cursor) but spans are by line, so it does not
change the answer. Stdlib + rq_engine.core on the hot path; the parser (and so
tree-sitter) loads only for a live parse.
"""

from __future__ import annotations

import os
import sqlite3

from rq_engine.core.errors import UsageError
from rq_engine.core.record import Record
from rq_engine.core.scoring import dir_steps, scope_chain, shared_scope


class Anchor(Record):
    """A place in a file: its absolute, symlink-resolved path and a 1-based line (col too)."""

    __slots__ = ("path", "line", "col")
    path: str
    line: int
    col: int | None

    def __init__(self, path: str, line: int, col: int | None = None) -> None:
        self.path = path
        self.line = line
        self.col = col

    @staticmethod
    def parse(spec: str, cwd: str) -> Anchor:
        """`FILE:LINE[:COL]` relative to `cwd`; UsageError (exit 64) for a malformed spec,
        a line or column below 1, or a FILE that is not a readable regular file."""
        file, line, col = _split(spec)
        if file is None or line is None:
            raise UsageError(f"--anchor {spec}: expected FILE:LINE or FILE:LINE:COL")
        if line < 1 or (col is not None and col < 1):
            raise UsageError(f"--anchor {spec}: lines and columns count from 1")
        full = os.path.realpath(os.path.join(cwd, file))
        if not os.path.exists(full):
            raise UsageError(f"--anchor {spec}: no such file")
        if not os.path.isfile(full):
            raise UsageError(f"--anchor {spec}: not a file")
        return Anchor(full, line, col)


def _split(spec: str) -> tuple[str | None, int | None, int | None]:
    """(FILE, LINE, COL) of `FILE:LINE[:COL]`; a FILE may itself hold `:`."""
    head, _, last = spec.rpartition(":")
    if not head or not last.isdigit():
        return None, None, None
    file, _, mid = head.rpartition(":")
    if file and mid.isdigit():
        return file, int(mid), int(last)
    return head, int(last), None


class AnchorScope(Record):
    """The anchor resolved against the index: its repository, repo-relative file, the
    directory components of that file, and the scope chain of the innermost
    definition holding the anchor line (its parent chain and its own name; empty
    when the line is in no definition)."""

    __slots__ = ("repository_id", "path", "dirs", "chain", "live")
    repository_id: int
    path: str
    dirs: tuple[str, ...]
    chain: tuple[str, ...]
    live: bool  # the chain came from a live parse (the index holds another version)

    def __init__(
        self,
        repository_id: int,
        path: str,
        dirs: tuple[str, ...],
        chain: tuple[str, ...],
        live: bool = False,
    ) -> None:
        self.repository_id = repository_id
        self.path = path
        self.dirs = dirs
        self.chain = chain
        self.live = live

    def facts(
        self, repository_id: int, path: str, parent: str | None
    ) -> tuple[int, bool, int | None]:
        """(enclosing levels, same file, directory steps) for a candidate; steps None
        outside the anchor's repository (nothing is boosted there)."""
        if repository_id != self.repository_id:
            return 0, False, None
        levels = shared_scope(parent, self.chain) if self.chain else 0
        if path == self.path:
            return levels, True, 0
        return levels, False, dir_steps(self.dirs, tuple(path.split("/")[:-1]))


def resolve(conn: sqlite3.Connection, roots: dict[int, str], anchor: Anchor) -> AnchorScope | None:
    """The anchor within the searched repositories (`roots`: id → checkout root), or None
    when it lies in none of them (then nothing is boosted)."""
    best: tuple[int, str] | None = None
    for rid, root in roots.items():
        r = root.rstrip("/")
        if anchor.path.startswith(r + "/") and (best is None or len(r) > len(best[1])):
            best = (rid, r)
    if best is None:
        return None
    rid, root = best
    rel = anchor.path[len(root) + 1 :]
    dirs = tuple(rel.split("/")[:-1])
    spans = _stored_spans(conn, rid, root, rel, anchor.line)
    live = spans is None
    if spans is None:
        spans = _parsed_spans(root, rel, anchor.line)
    return AnchorScope(rid, rel, dirs, innermost(spans), live)


Span = tuple[str, str | None, int, int | None]  # name, parent, line, end_line


def innermost(spans: list[Span]) -> tuple[str, ...]:
    """The scope chain of the innermost span (latest start, then shortest)."""
    if not spans:
        return ()
    name, parent, _, _ = max(spans, key=lambda s: (s[2], -(s[3] or s[2])))
    return (*scope_chain(parent), name)


def _stored_spans(
    conn: sqlite3.Connection, rid: int, root: str, rel: str, line: int
) -> list[Span] | None:
    """Definitions holding `line` from the index, or None when the index does not hold
    the file as it is now (its stored mtime and size differ from a stat)."""
    row = conn.execute(
        "SELECT id, mtime, size FROM files WHERE repository_id = ? AND path = ?", (rid, rel)
    ).fetchone()
    if row is None:
        return None
    try:
        st = os.stat(os.path.join(root, rel))
    except OSError:
        return None
    if (row[1], row[2]) != (st.st_mtime_ns, st.st_size):
        return None
    return [
        (str(n), p, int(a), b)
        for n, p, a, b in conn.execute(
            "SELECT name, parent, line, end_line FROM symbols WHERE file_id = ?"
            " AND line <= ? AND coalesce(end_line, line) >= ?",
            (row[0], line, line),
        )
    ]


# live parses by (file, mtime, size): a query searches again after revalidating its
# results, and a picker asks from the same place on every keystroke
_live: dict[tuple[str, int, int], list[Span]] = {}


def _parsed_spans(root: str, rel: str, line: int) -> list[Span]:
    """Definitions holding `line` from a live parse of the file (no plugin: none)."""
    from rq_engine.lang.registry import language_for_path

    lang = language_for_path(rel)
    if lang is None:
        return []
    full = os.path.join(root, rel)
    try:
        st = os.stat(full)
    except OSError:
        return []
    key = (full, st.st_mtime_ns, st.st_size)
    spans = _live.get(key)
    if spans is None:
        from rq_engine.index.parse import OK, Job, max_file_bytes, parse_job

        parsed = parse_job(root, Job(rel, lang, None), max_file_bytes())
        rows = parsed.rows if parsed.status == OK else ()
        spans = [(r[0], r[5], r[3], r[4]) for r in rows]  # (name, parent, line, end_line)
        _live.clear()  # one anchor file at a time is all a face asks from
        _live[key] = spans
    return [s for s in spans if s[2] <= line <= (s[3] if s[3] is not None else s[2])]
