"""What a pass reports: progress while it runs, the tally when it ends. Stdlib + core.record only."""

from __future__ import annotations

from rq_engine.core.record import Record, field

# How many failure reasons a pass keeps for the report.
MAX_ERRORS = 20


class IndexProgress(Record):
    """One progress report: `phase` is walk|parse|finish; `done`/`total` count files to
    parse; `leaf_pending` how many files holding the query's leaf are not committed yet
    (0 once every literal match of it is in the index)."""

    phase: str
    done: int
    total: int
    files_seen: int
    symbols: int
    elapsed: float
    leaf_pending: int = 0


class IndexStats(Record):
    files_seen: int = 0  # files the walk found whose language a plugin knows
    files_indexed: int = 0  # parsed and written this pass
    files_unchanged: int = 0  # mtime+size short-circuit, or same content hash
    files_deleted: int = 0  # rows removed: deleted, renamed away, now ignored/skipped
    files_skipped: int = 0  # a symlink, binary, oversized or minified
    files_failed: int = 0  # unreadable, not a regular file, no plugin, parse error
    files_bad_encoding: int = 0  # not UTF-8; still parsed and indexed (counted in files_indexed)
    files_symlinks: int = 0  # symlinks, never followed (counted in files_skipped)
    symbols_cut: int = 0  # symbol rows whose name or qualified parent was cut (index/bounds.py)
    symbols: int = 0  # symbol rows written this pass
    seconds: float = 0.0
    complete: bool = False  # a full sweep finished: coverage is 'complete'
    repository_id: int = 0
    identity: str = ""
    root: str = ""
    symbols_total: int = 0  # symbol rows of the repository after the pass
    files_total: int = 0  # file rows of the repository after the pass
    cancelled: bool = False  # stopped by the cancel token
    dropped: bool = False  # stopped because `rq --drop` removed the repository meanwhile
    # a full sweep in git: every listed directory's mtime (index/fresh.py's quick check)
    dirs: dict[str, int] | None = None
    timed_out: bool = False  # stopped by the deadline
    cold: bool = False  # bulk pass: per-row triggers suspended; derived tables written directly
    walked_via: str = ""  # "git" | "native"
    # source files of languages rq has no plugin for, by language name (lang/unread.py)
    files_unread: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # "path: reason", at most MAX_ERRORS


def fail(stats: IndexStats, path: str, reason: str) -> None:
    stats.files_failed += 1
    if len(stats.errors) < MAX_ERRORS:
        stats.errors.append(f"{path}: {reason}")


def notes(stats: IndexStats) -> str:
    """What the summary line adds after its failures: `, 2 not UTF-8, 1 symlink skipped,
    40 qualified names cut` (empty when there is nothing to say)."""
    out = ""
    if stats.files_bad_encoding:
        out += f", {stats.files_bad_encoding} not UTF-8"
    if stats.files_symlinks:
        s = "" if stats.files_symlinks == 1 else "s"
        out += f", {stats.files_symlinks} symlink{s} skipped"
    if stats.symbols_cut:
        s = "" if stats.symbols_cut == 1 else "s"
        out += f", {stats.symbols_cut} qualified name{s} cut"
    return out
