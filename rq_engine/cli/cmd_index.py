"""`rq --index [DIR]`, `rq --status`, `rq --drop [DIR]`: index management from the shell.

stdout carries data only (the --status table); progress, summaries and errors
go to stderr as `rq: …`. Stdlib + rq_engine only (the progress bar is a plain
\\r line: rich costs ~80 ms to import and adds nothing here).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_engine.core.printers import Output, Printer, printer_for

if TYPE_CHECKING:
    from rq_engine.index.stats import IndexStats
    from rq_engine.store.status import RepoRow


def run(ns: argparse.Namespace) -> int:
    try:
        if ns.status:
            return _status(sys.stdout, json=ns.json, ndjson=ns.ndjson)
        printer = printer_for(json=ns.json, ndjson=ns.ndjson)
        data = ns.json or ns.ndjson  # the facts go to stdout: stderr says no more of them
        if ns.drop is not None:
            return _drop(ns.drop, printer, data)
        return _index(ns.index if ns.index is not None else ".", ns.path or [], printer, data)
    except sqlite3.Error as e:
        # e.g. "database is locked" past the busy timeout, a full disk, a corrupt file
        raise RqError(f"index error: {e}", ExitCode.IOERR) from e


def _dir(arg: str, flag: str) -> Path:
    p = Path(arg).expanduser()
    if not p.exists():
        raise UsageError(f"{flag} {arg}: no such directory")
    if not p.is_dir():
        raise UsageError(f"{flag} {arg}: not a directory")
    return p.resolve()


# --- --index --------------------------------------------------------------------


class _Bar:
    """A one-line progress bar on a terminal, redrawn at most 10 times a second."""

    WIDTH = 24

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.last = 0.0
        self.drawn = False

    def __call__(self, p: object) -> None:
        from rq_engine.index.stats import IndexProgress

        assert isinstance(p, IndexProgress)
        now = time.monotonic()
        if now - self.last < 0.1 and p.done < p.total:
            return
        self.last = now
        if p.phase == "walk":
            line = "rq: walking…"
        elif p.phase == "finish":
            line = f"rq: finishing… {p.symbols} symbols  {p.elapsed:.1f}s"
        else:
            frac = p.done / p.total if p.total else 1.0
            fill = int(frac * self.WIDTH)
            bar = "#" * fill + "-" * (self.WIDTH - fill)
            line = f"rq: [{bar}] {p.done}/{p.total} files  {p.symbols} symbols  {p.elapsed:.1f}s"
        self.out.write("\r" + line + "\x1b[K")
        self.out.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.out.write("\r\x1b[K")
            self.out.flush()


def _index(arg: str, subtrees: list[str], printer: Printer, data: bool) -> int:
    from rq_engine.core.identity import checkout_for
    from rq_engine.index import gitstate, walker

    root = _dir(arg, "--index")
    # git lists the files (~40 ms on Django) while the indexer is imported and the
    # store opened: the first parse starts that much sooner. `git status` runs
    # meanwhile too: a complete sweep records what it found (index/fresh.py), so the
    # next search trusts the index without asking git again.
    checkout = checkout_for(root)
    subs = [_subtree(checkout.root, root, s) for s in subtrees]
    if checkout.git_dir is None:
        outer = _tracked_outside_git(root)
        if outer is not None and outer != root:
            # inside a directory already indexed: index this part of it, not a new one
            say(f"{root} is inside the indexed directory {outer}")
            checkout = checkout_for(outer)
            subs = [_subtree(outer, root, s) for s in subtrees or ["."]]
            subs = [s or "." for s in subs]
    walk = walker.start(checkout.root, git=checkout.git_dir is not None, subtrees=subs)
    stamp = gitstate.stamp(checkout.git_dir)
    status = gitstate.PendingStatus(checkout.root) if checkout.git_dir is not None else None
    from rq_engine.index import fresh
    from rq_engine.index.indexer import WRITER_BUSY_MS, run_index
    from rq_engine.store.db import connect

    conn = connect(busy_ms=WRITER_BUSY_MS, writer=True)
    bar = _Bar(sys.stderr) if sys.stderr.isatty() else None
    try:
        stats = run_index(conn, checkout, subtrees=subs, progress=bar, walk=walk)
        _rebuild_if_off(conn)
        if stats.complete:
            st = status.result() if status is not None else None
            changed = bool(stats.files_indexed or stats.files_deleted)
            held = fresh.held_keys(checkout.root, st)
            fresh.settle(
                conn,
                checkout.root,
                checkout.git_dir,
                stats.repository_id,
                stamp,
                held,
                reindexed=changed,
                dirs=stats.dirs,
            )
    except KeyboardInterrupt:
        if bar:
            bar.clear()
        say("interrupted; the batches already written are kept")
        return int(ExitCode.INTERRUPTED)
    finally:
        if bar:
            bar.clear()
        conn.close()
    if stats.dropped:
        say(
            f"interrupted: {stats.identity} was dropped (rq --drop) while this pass"
            " indexed it; nothing of it is kept"
        )
        return int(ExitCode.INTERRUPTED)
    if data:  # (--json, --ndjson: the summary is the data; only the pass's own notes stay)
        from rq_engine.store.paths import index_db_file

        head: dict[str, object] = {"index": index_db_file()}
        printer.write(sys.stdout, Output(head, [_index_json(stats)], []))
        return int(ExitCode.OK)
    from rq_engine.index.stats import notes

    extra = notes(stats)
    say(
        f"indexed {stats.files_total} files ({stats.files_indexed} new or changed, "
        f"{stats.files_deleted} removed, {stats.files_skipped} skipped, "
        f"{stats.files_failed} failed{extra}), {stats.symbols_total} symbols "
        f"in {stats.seconds:.2f} s — {stats.identity}"
    )
    if stats.files_unread:
        from rq_engine.lang import unread

        say(f"{unread.summary(stats.files_unread)} (no plugin for them)")
    if subs and not stats.complete:
        say("coverage stays warming: the rest of the repository is indexed as it is searched")
    for e in stats.errors:
        say(f"  {e}")
    if stats.files_failed > len(stats.errors):
        say(f"  … and more ({stats.files_failed} failures in all)")
    return int(ExitCode.OK)


def _index_json(stats: IndexStats) -> dict[str, object]:
    """`rq --index --json`'s repository: the summary line's facts, exact (the files and
    symbols the repository holds after the pass, as --status counts them, then what
    this pass did)."""
    return {
        "repository": stats.identity,
        "root": stats.root,
        "coverage": "complete" if stats.complete else "warming",
        "files": stats.files_total,
        "symbols": stats.symbols_total,
        "indexed": stats.files_indexed,
        "removed": stats.files_deleted,
        "skipped": stats.files_skipped,
        "failed": stats.files_failed,
        "not_utf8": stats.files_bad_encoding,
        "symlinks": stats.files_symlinks,
        "names_cut": stats.symbols_cut,
        "seconds": round(stats.seconds, 3),
        "not_read": dict(stats.files_unread),
        "errors": list(stats.errors),  # (at most index/stats.MAX_ERRORS; `failed` counts all)
    }


def _rebuild_if_off(conn: sqlite3.Connection) -> None:
    """The next writer repairs what it finds wrong: derived tables that disagree with the
    symbols in count while nobody holds the triggers off (index/check.py) are rebuilt."""
    from rq_engine.index import check, fts

    if check.needs_rebuild(conn):
        fts.rebuild(conn)
        say("rebuilt the fuzzy index: it disagreed with the symbols")


def _tracked_outside_git(root: Path) -> Path | None:
    """The directory indexed with `rq --index` that holds `root`, if any (no git)."""
    from rq_engine.store.paths import index_db_file
    from rq_engine.store.repos import tracked_root

    if not Path(index_db_file()).exists():
        return None
    from rq_engine.store.db import connect

    conn = connect(readonly=True)
    try:
        found = tracked_root(conn, str(root))
    finally:
        conn.close()
    return Path(found) if found is not None else None


def _subtree(root: Path, base: Path, sub: str) -> str:
    """A --path argument (relative to the --index directory) as a repo-relative path."""
    p = Path(sub).expanduser()
    full = (base / p).resolve() if not p.is_absolute() else p.resolve()
    try:
        rel = full.relative_to(root)
    except ValueError:
        raise UsageError(f"--path {sub}: not inside {root}") from None
    if not full.exists():
        raise UsageError(f"--path {sub}: no such file or directory")
    return rel.as_posix() if str(rel) != "." else ""


# --- --drop ---------------------------------------------------------------------


def _drop(arg: str, printer: Printer, data: bool) -> int:
    """Forget DIR's repository; with --json, `{"index", "results": [the repository]}`
    (empty, and exit 1, when it was not indexed)."""
    from rq_engine.index.indexer import drop_repository
    from rq_engine.store.db import connect
    from rq_engine.store.paths import index_db_path

    root = _dir(arg, "--drop")
    d = None
    if index_db_path().exists():
        conn = connect(writer=True)
        try:
            d = drop_repository(conn, root)
        finally:
            conn.close()
    if data:
        records: list[dict[str, object]] = []
        if d is not None:
            records.append(
                {
                    "repository": d.identity,
                    "checkouts": d.checkouts,
                    "files": d.files,
                    "symbols": d.symbols,
                }
            )
        printer.write(sys.stdout, Output({"index": str(index_db_path())}, records, []))
    if d is None:
        say(f"{root} is not indexed; nothing to drop")
        return int(ExitCode.MISS)
    if not data:
        s = "" if d.checkouts == 1 else "s"
        say(
            f"dropped {d.identity}: {d.checkouts} checkout{s}, {d.files} files, {d.symbols} symbols"
        )
    return int(ExitCode.OK)


# --- --status -------------------------------------------------------------------


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "-"


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _status(out: TextIO, *, json: bool = False, ndjson: bool = False) -> int:
    """The table, or with --json one object with the same facts (--ndjson: a repository a
    line), through the printer seam as `rq -q` prints: `index`, its `bytes`, `results`
    (a repository each) and the `problems` the checks found."""
    from rq_engine.store import status
    from rq_engine.store.db import connect
    from rq_engine.store.paths import index_db_path

    printer = printer_for(json=json, ndjson=ndjson)
    db = index_db_path()
    if not db.exists():
        note = f"no repositories indexed (no index at {db})"
        printer.write(
            out, Output({"index": str(db), "bytes": 0}, [], [note], tail={"problems": []})
        )
        return int(ExitCode.OK)
    from rq_engine.index import check
    from rq_engine.lang import unread

    try:
        conn = connect(db, readonly=True)
        try:
            repos = status.repositories(conn)
            # SQLite's quick check (every page read once), and the derived tables counted
            # against the symbols: "complete" is never shown over a store that lost them
            broken = check.sqlite_problems(conn, full=False)
            found = check.derived(conn) if not broken else check.Findings()
        finally:
            conn.close()
    except RqError:
        raise
    except Exception as e:  # a corrupt or foreign file at the index path
        raise RqError(f"cannot read index {db}: {e}", ExitCode.IOERR) from e
    rows = [("REPOSITORY", "COVERAGE", "FILES", "SYMBOLS", "SKIPPED", "FAILED", "UPDATED")]
    for r in repos:
        rows.append(
            (
                r.identity,
                "damaged" if r.id in found.damaged else r.status,
                str(r.files),
                str(r.symbols),
                str(r.files_skipped or 0),
                str(r.files_failed or 0),
                _when(r.updated_at),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines: list[str] = []
    for i, row in enumerate(rows):
        cells = [
            row[c].ljust(widths[c]) if c in (0, 1, 6) else row[c].rjust(widths[c])
            for c in range(len(row))
        ]
        lines.append("  ".join(cells).rstrip())
        if i:
            for co in repos[i - 1].checkouts:
                branch = co.branch or "(no branch)"
                lines.append(f"  {co.root}  {branch}  indexed {_when(co.indexed_at)}")
            not_read = unread.summary(unread.decode(repos[i - 1].files_unread))
            if not_read:
                lines.append(f"  {not_read}")
    n_co = sum(len(r.checkouts) for r in repos)
    size = status.database_bytes(db)
    lines.append("")
    lines.append(
        f"{len(repos)} repositories, {n_co} checkouts, {sum(r.files for r in repos)} files, "
        f"{sum(r.symbols for r in repos)} symbols; index {db} {_size(size)} (with WAL)"
    )
    records = [_repo_json(r, "damaged" if r.id in found.damaged else r.status) for r in repos]
    problems = [*broken, *found.problems]
    printer.write(
        out, Output({"index": str(db), "bytes": size}, records, lines, tail={"problems": problems})
    )
    out.flush()
    for p in found.problems:
        say(f"{p}")
    if broken:
        more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
        raise RqError(
            f"the index {db} failed SQLite's quick check: {broken[0]}{more} (rq --check lists them)",
            ExitCode.IOERR,
        )
    return int(ExitCode.OK)


def _repo_json(r: RepoRow, coverage: str) -> dict[str, object]:
    """A repository of `rq --status --json`: the table's row, its checkouts and the files
    not read, with exact values (times as Unix seconds, null when never)."""
    from rq_engine.lang import unread

    return {
        "repository": r.identity,
        "coverage": coverage,
        "files": r.files,
        "symbols": r.symbols,
        "skipped": r.files_skipped or 0,
        "failed": r.files_failed or 0,
        "updated_at": r.updated_at,
        "checkouts": [
            {"root": c.root, "branch": c.branch, "indexed_at": c.indexed_at} for c in r.checkouts
        ],
        "not_read": unread.decode(r.files_unread),
    }
