"""One pass's two halves around the parse: which files to parse (`collect`), and writing a batch
of parse results in one transaction (`write_batch`), keeping FTS and the names whole under
suspended triggers. Used by index/indexer.run_index only; stdlib + rq_engine.index/store/lang.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

from rq_engine.core.sqlite import sqlite3
from rq_engine.index import crashpoints, fts, reading
from rq_engine.index.parse import (
    FAILED,
    GONE,
    NO_PLUGIN,
    OK,
    SAME,
    SKIPPED,
    Job,
    Parsed,
    max_file_bytes,
)
from rq_engine.index.stats import MAX_ERRORS, IndexStats, fail
from rq_engine.lang import registry, unread
from rq_engine.store import derived, writes


class RepositoryGone(Exception):
    """The pass's repository was dropped (`rq --drop`) while the pass ran: its rows are
    gone and nothing more may be written for it (the foreign keys would refuse)."""


def still_there(conn: sqlite3.Connection, repo_id: int) -> None:
    """Inside a write transaction: RepositoryGone (rolling the transaction back) when
    the repository row is gone. One primary-key read per batch."""
    if conn.execute("SELECT 1 FROM repositories WHERE id = ?", (repo_id,)).fetchone() is None:
        raise RepositoryGone(repo_id)


def rel(path: str) -> str:
    return path.replace(os.sep, "/").removeprefix("./")


def collect(
    paths: Sequence[str],
    root: str,
    states: dict[str, writes.FileState],
    stats: IndexStats,
    *,
    given: bool = False,
) -> tuple[list[Job], list[int], set[str]]:
    """Which of `paths` to parse (new, or mtime/size moved), which indexed files lose
    their rows (vanished, skipped, failed now), and which paths were listed. `given`:
    the paths were named (a check's, a revalidation's), not listed by git or a walk,
    so one behind a linked directory is possible, and is gone as git sees it."""
    limit = max_file_bytes()
    listed: set[str] = set()
    jobs: list[Job] = []
    doomed: list[int] = []
    for path in paths:
        lang = registry.language_for_path(path)
        if lang is None:
            other = unread.language_name(path)  # by extension: no file is opened
            if other is not None:
                stats.files_unread[other] = stats.files_unread.get(other, 0) + 1
            continue
        if not path.isascii():
            try:
                path.encode("utf-8")
            except UnicodeEncodeError:  # undecodable bytes in the name: SQLite TEXT can't hold it
                stats.files_seen += 1
                fail(stats, os.fsencode(path).decode("utf-8", "replace"), "file name is not UTF-8")
                continue
        listed.add(path)
        if not states:
            # Nothing indexed to compare a stat with: the worker's own lstat sorts out
            # symlinks, directories, special and oversized files (~20 ms of serial stats
            # before the first parse on Django; parse.parse_job explains each case).
            stats.files_seen += 1
            jobs.append(Job(path, lang, None))
            continue
        old = states.get(path)
        full = os.path.join(root, path)
        try:
            s = os.lstat(full)  # a symlink is a link (index/reading.py): never followed
            if given and "/" in path and reading.behind_link(root, path):
                raise FileNotFoundError(errno.ENOENT, "behind a symlink")
            reading.check(s)
        except FileNotFoundError:
            if old is not None:
                doomed.append(old.id)
            continue
        except IsADirectoryError:
            continue  # a submodule: not a file git would read
        except reading.Refused as e:
            stats.files_seen += 1
            if e.reason == reading.SYMLINK:
                stats.files_skipped += 1
                stats.files_symlinks += 1
            else:
                fail(stats, path, e.reason)
            if old is not None:
                doomed.append(old.id)
            continue
        except OSError as e:
            stats.files_seen += 1
            fail(stats, path, f"unreadable: {e.strerror or e}")
            if old is not None:
                doomed.append(old.id)
            continue
        stats.files_seen += 1
        if s.st_size > limit:
            stats.files_skipped += 1
        elif old is not None and old.mtime == s.st_mtime_ns and old.size == s.st_size:
            # git's racy-clean rule in reverse: same mtime (ns) and size => not read at all.
            stats.files_unchanged += 1
            continue
        else:
            jobs.append(Job(path, lang, old.content_hash if old else None))
            continue
        if old is not None:
            doomed.append(old.id)
    return jobs, doomed, listed


def write_batch(
    conn: sqlite3.Connection,
    repo_id: int,
    batch: list[Parsed],
    stats: IndexStats,
    suspension: fts.Suspension | None,
    cold: derived.ColdNames | None = None,
) -> None:
    """Write one batch of parse results in one transaction.

    The files it replaces are looked up inside the transaction (another writer may
    have indexed a path since this pass's snapshot). With the per-row triggers
    off — this pass's bulk suspension or another's — the batch keeps FTS and the
    names queue whole itself (fts.forget/fill); a bulk pass's own new names go in
    directly (`cold`). Otherwise the derived tables are refreshed after it commits.
    """
    indexed = unchanged = deleted = skipped = failed = bad = symbols = links = cut = 0
    errors: list[str] = []
    with writes.transaction(conn):
        still_there(conn, repo_id)
        current = writes.file_ids(conn, repo_id, [r.path for r in batch])
        for r in batch:
            if r.status == FAILED and r.reason.startswith(NO_PLUGIN):
                # a language that would not load (a broken install) says nothing about
                # the file: its indexed rows stay
                current.pop(r.path, None)
        replaced = [current[r.path] for r in batch if r.status != SAME and r.path in current]
        fts.forget(conn, replaced)
        parsed = []
        for r in batch:
            old_id = current.get(r.path)
            if r.status == OK:
                parsed.append(
                    (r.path, r.language, r.mtime, r.size, r.content_hash, r.rows, old_id, r.refs)
                )
                indexed += 1
                symbols += len(r.rows)
                if r.reason == "bad-encoding":
                    bad += 1
                cut += r.cut
                continue
            if r.status == SAME and old_id is not None:
                writes.touch_file(conn, old_id, r.mtime, r.size)
                unchanged += 1
                continue
            if r.status == SKIPPED:
                skipped += 1
                if r.reason == reading.SYMLINK:
                    links += 1
            elif r.status == FAILED:
                failed += 1
                errors.append(f"{r.path}: {r.reason}")
            if old_id is not None:
                writes.delete_files(conn, [old_id])
                if r.status == GONE:
                    deleted += 1
        after = writes.write_files(conn, repo_id, parsed)[1] if parsed else None
        if cold is not None:
            for r in batch:
                if r.keys:
                    cold.learn(r.keys)
            cold.write(conn, (row[0] for p in parsed for row in p[5]))
        fts.fill(conn, suspension, after, queue_names=cold is None)
        crashpoints.phase("batch-written")
    crashpoints.phase("batch-committed")
    # Counted only once the transaction committed: a rolled-back batch wrote nothing.
    stats.files_indexed += indexed
    stats.files_unchanged += unchanged
    stats.files_deleted += deleted
    stats.files_skipped += skipped
    stats.files_failed += failed
    stats.files_bad_encoding += bad
    stats.files_symlinks += links
    stats.symbols_cut += cut
    stats.symbols += symbols
    stats.files_seen -= sum(1 for r in batch if r.status == GONE)
    stats.errors.extend(errors[: max(0, MAX_ERRORS - len(stats.errors))])
    if cold is None:
        derived.after_batch(conn, repo_id)
