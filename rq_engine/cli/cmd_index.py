"""`rq --index [DIR]` and `rq --drop [DIR]`: index management from the shell.

`rq --status` is cmd_status.py's. stdout carries data only (with --json, the
summary's facts); progress, summaries and errors go to stderr as `rq: …`.
Stdlib + rq_engine only (the progress bar is a plain \\r line: rich costs
~80 ms to import and adds nothing here).
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_engine.core.printers import Output, Printer, printer_for

# argparse and typing (~3-4 ms to import) only for the annotations: `rq --index`'s
# arguments are read without argparse (cli/args.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from rq_engine.index.stats import IndexStats


def run(ns: argparse.Namespace) -> int:
    try:
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
    status = gitstate.start_status(checkout.root) if checkout.git_dir is not None else None
    # (and the commit times a complete sweep records: fresh.settle)
    log = gitstate.start_commit_times(checkout.root) if checkout.git_dir is not None else None
    from rq_engine.index import fresh
    from rq_engine.index.indexer import WRITER_BUSY_MS, run_index
    from rq_engine.store.db import connect

    conn = connect(busy_ms=WRITER_BUSY_MS, writer=True)
    bar = _Bar(sys.stderr) if sys.stderr.isatty() else None
    try:
        stats = run_index(conn, checkout, subtrees=subs, progress=bar, walk=walk)
        _rebuild_if_off(conn)
        if stats.complete:
            st = gitstate.finish_status(status)
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
                log=log,
            )
    except KeyboardInterrupt:
        if bar:
            bar.clear()
        say("interrupted; the batches already written are kept")
        return int(ExitCode.INTERRUPTED)
    finally:
        if bar:
            bar.clear()
        for running in (status, log):
            if running is not None:
                running.abandon()  # (unless read: settle wanted the times, a complete pass the status)
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
