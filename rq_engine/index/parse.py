"""Read, hash and parse one file into symbol rows: the unit of work a pool worker runs.

Runs in the indexer's worker processes (or in-process for small jobs). Never
touches SQLite: it returns plain tuples the parent writes. Never raises: every
failure (unreadable, not a regular file, plugin error) becomes a result with a
reason, so one bad file can't stop a pass. Never follows a symlink nor opens a
special file (index/reading.py); caps what one definition may write
(index/bounds.py). Imports plugins (and so tree-sitter) lazily, through the registry.
"""

from __future__ import annotations

import os

from rq_engine.core.columns import SymbolRow as Row
from rq_engine.core.columns import added_names
from rq_engine.core.namekeys import NameRecord, name_record
from rq_engine.core.record import Record
from rq_engine.index import bounds, reading

# A NUL byte in the first 8 KiB means binary — git's own heuristic (xdiff's buffer_is_binary).
BINARY_PROBE_BYTES = 8192
# Files above this are generated or vendored (bundles, fixtures, parser tables);
# a 1 MiB Go file parses in ~0.5 s and its names are rarely what anyone jumps to.
DEFAULT_MAX_FILE_BYTES = 1 << 20
# Minified bundles (jquery.min.js: 87 KB on 3 lines) are machine output: their
# one-letter names are noise in a navigation index and a long line is the
# parser's worst case. A file this big whose lines average this long is one.
# Across the nine corpora, files over 16 KiB average under 70 bytes a line when
# hand-written and at most 202 when generated (Go test data); the ten above
# 300 are all minified bundles or embedded JS blobs.
MINIFIED_MIN_BYTES = 16 * 1024
MINIFIED_MEAN_LINE = 300

# the facts declared since m001, read off each Symbol after BASE (none: no cost)
_ADDED = added_names()

OK = "ok"  # parsed; rows hold the symbols
SAME = "same"  # content hash equals the indexed one: only mtime/size need updating
SKIPPED = "skipped"  # a symlink, binary, oversized or minified: not indexed, counted
FAILED = "failed"  # unreadable, not a regular file, a pseudo-file, or the plugin raised
GONE = "gone"  # vanished between the walk and the read (a deletion)
# The reason of a FAILED result whose language could not be loaded at all (a broken
# install, not a bad file): the file's indexed rows stay, nothing says they are wrong.
NO_PLUGIN = "no plugin"


class Job(Record):
    path: str  # repo-relative
    language: str
    old_hash: str | None  # the indexed content hash, to skip a parse when only mtime moved


class Parsed(Record):
    path: str
    language: str
    status: str
    mtime: int = 0
    size: int = 0
    content_hash: str = ""
    rows: tuple[Row, ...] = ()
    reason: str = ""  # why SKIPPED/FAILED, or "bad-encoding" on an OK non-UTF-8 file
    # On a cold pass: the derived keys of the names this worker saw first in this
    # file (namekeys.name_record), so the parent only inserts them (store.derived.ColdNames).
    keys: tuple[NameRecord, ...] = ()
    cut: int = 0  # rows whose name or qualified parent was cut to its bound (index/bounds.py)
    # (qualifier, name) pairs the file names (`io.Reader`): the canonical prior's data
    refs: tuple[tuple[str, str], ...] = ()


def max_file_bytes() -> int:
    """RQ_MAX_FILE_BYTES: a whole number of bytes above 0; unset or malformed (`abc`,
    `-1`, `0`: every file too big, which would empty the index) keeps the default."""
    raw = os.environ.get("RQ_MAX_FILE_BYTES", "").strip()
    try:
        n = int(raw) if raw else DEFAULT_MAX_FILE_BYTES
    except ValueError:
        return DEFAULT_MAX_FILE_BYTES
    return n if n > 0 else DEFAULT_MAX_FILE_BYTES


try:  # hashlib would also load OpenSSL's _hashlib (~2 ms) for a hash it does not need
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def parse_job(root: str, job: Job, limit: int, seen: set[str] | None = None) -> Parsed:
    """Read `root/job.path`, and unless its hash is unchanged, extract its symbols.

    With `seen` (a cold pass), also key every name not in it (and add it there).
    """
    full = os.path.join(root, job.path)
    try:
        # never through a symlink, never a FIFO, device or pseudo-file (index/reading.py)
        fd, st = reading.open_source(full)
    except reading.Refused as e:
        status = SKIPPED if e.reason == reading.SYMLINK else FAILED
        return Parsed(job.path, job.language, status, reason=e.reason)
    except FileNotFoundError:
        return Parsed(job.path, job.language, GONE)
    except IsADirectoryError:
        # a submodule: not a file git would read (the indexer counts it out
        # again, as for a file deleted meanwhile)
        return Parsed(job.path, job.language, GONE)
    except OSError as e:
        return Parsed(job.path, job.language, FAILED, reason=f"unreadable: {e.strerror or e}")
    try:
        if st.st_size > limit:
            return Parsed(
                job.path, job.language, SKIPPED, st.st_mtime_ns, st.st_size, reason="oversized"
            )
        data = reading.read_fd(fd, st.st_size)
    except OSError as e:
        return Parsed(job.path, job.language, FAILED, reason=f"unreadable: {e.strerror or e}")
    finally:
        os.close(fd)
    mtime, size = st.st_mtime_ns, len(data)
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        return Parsed(job.path, job.language, SKIPPED, mtime, size, reason="binary")
    if size >= MINIFIED_MIN_BYTES and size > MINIFIED_MEAN_LINE * (data.count(b"\n") + 1):
        return Parsed(job.path, job.language, SKIPPED, mtime, size, reason="minified")
    h = content_hash(data)
    if job.old_hash is not None and h == job.old_hash:
        return Parsed(job.path, job.language, SAME, mtime, size, h)
    # Not UTF-8: still parsed, its stray bytes read as Windows-1252 so identifiers
    # stay whole (index/reading.py); counted so the user can see it.
    source, utf8 = reading.utf8_source(data)
    reason = "" if utf8 else "bad-encoding"
    from rq_engine.lang import registry

    try:
        plugin = registry.plugin(job.language)
    except Exception as e:  # a broken install: the file's rows are kept (NO_PLUGIN)
        return Parsed(job.path, job.language, FAILED, mtime, size, h, reason=f"{NO_PLUGIN}: {e!r}")
    try:
        syms = plugin.extract(source)
    except ImportError as e:  # the grammar itself failed to load
        return Parsed(job.path, job.language, FAILED, mtime, size, h, reason=f"{NO_PLUGIN}: {e}")
    except Exception as e:  # a plugin bug must not stop the pass
        return Parsed(
            job.path, job.language, FAILED, mtime, size, h, reason=f"parse error: {e!r}"[:200]
        )
    base = [(s.name, str(s.kind), str(s.visibility), s.line, s.end_line, s.parent) for s in syms]
    if _ADDED:
        base = [(*b, *(getattr(s, n) for n in _ADDED)) for b, s in zip(base, syms, strict=True)]
    rows, cut = bounds.bound_rows(base, plugin.scope_separator)
    try:
        pairs = tuple(plugin.references(source))
    except Exception:  # a plugin bug costs the prior for this file, not its symbols
        pairs = ()
    keys: tuple[NameRecord, ...] = ()
    if seen is not None:
        new = {r[0] for r in rows}.difference(seen)
        seen.update(new)
        keys = tuple(name_record(n) for n in new)
    return Parsed(job.path, job.language, OK, mtime, size, h, rows, reason, keys, cut, pairs)


def as_tuple(p: Parsed) -> tuple[object, ...]:
    """A result as plain tuples and strings: what a pool worker marshals to the parent
    (`Parsed(*t)` rebuilds it)."""
    return (
        p.path,
        p.language,
        p.status,
        p.mtime,
        p.size,
        p.content_hash,
        p.rows,
        p.reason,
        p.keys,
        p.cut,
        p.refs,
    )
