"""What a pass reports: progress while it runs, the tally when it ends. Stdlib + core.value only."""

from __future__ import annotations

from rq_engine.core.value import field, value

# How many failure reasons a pass keeps for the report.
MAX_ERRORS = 20


@value
class IndexProgress:
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


@value
class IndexStats:
    files_seen: int = 0  # files the walk found whose language a plugin knows
    files_indexed: int = 0  # parsed and written this pass
    files_unchanged: int = 0  # mtime+size short-circuit, or same content hash
    files_deleted: int = 0  # rows removed: deleted, renamed away, now ignored/skipped
    files_skipped: int = 0  # binary, oversized or minified
    files_failed: int = 0  # unreadable, not a regular file, no plugin, parse error
    files_bad_encoding: int = 0  # not UTF-8; still parsed and indexed (counted in files_indexed)
    symbols: int = 0  # symbol rows written this pass
    seconds: float = 0.0
    complete: bool = False  # a full sweep finished: coverage is 'complete'
    repository_id: int = 0
    identity: str = ""
    root: str = ""
    symbols_total: int = 0  # symbol rows of the repository after the pass
    files_total: int = 0  # file rows of the repository after the pass
    cancelled: bool = False  # stopped by the cancel token
    # a full sweep in git: every listed directory's mtime (index/fresh.py's quick check)
    dirs: dict[str, int] | None = None
    timed_out: bool = False  # stopped by the deadline
    cold: bool = False  # bulk pass: per-row triggers suspended; derived tables written directly
    walked_via: str = ""  # "git" | "native"
    errors: list[str] = field(default_factory=list)  # "path: reason", at most MAX_ERRORS


def fail(stats: IndexStats, path: str, reason: str) -> None:
    stats.files_failed += 1
    if len(stats.errors) < MAX_ERRORS:
        stats.errors.append(f"{path}: {reason}")
