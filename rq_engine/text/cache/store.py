"""Where generations live under `$RQ_CACHE/text/`, and how one becomes current.

    $RQ_CACHE/text/<store>-<rid>/    the index's store uuid and the repository's row id
        lock                         one builder at a time (flock, never waited on)
        current                      the published generation's file name
        g-<seq>-<rand>.db            published bases: full builds (immutable)
        d-<seq>-<rand>.db            published overlays: deltas over a base (immutable)
        tmp-<pid>-<rand>.db          a builder's work in progress

Publication, in order: the builder writes its temporary file (manifest state
`building`), checks the statistics, marks it `complete`, fsyncs it, renames it
to `g-…` or `d-…` (atomic), fsyncs the directory, then replaces `current` (write a
temporary, fsync, rename). A builder killed at any point leaves `current`
naming the old generation or the new one, never a mix; what it leaves behind is
removed by the next builder: a `tmp-` file of a dead pid at once, a published
file `current` does not name once a newer one is published (the newest such file
is kept: a reader that has just read `current` may be about to open it; so is the
base of every overlay kept). Readers keep an open generation even after it is
unlinked.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rq_engine.store.paths import text_cache_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType

_GEN = re.compile(r"[gd]-\d+-[0-9a-f]{8}\.db")
_BASE = re.compile(r"g-\d+-[0-9a-f]{8}\.db")
_TMP = re.compile(r"tmp-(\d+)-[0-9a-f]{8}\.db")
KEEP = 2  # published generations kept: the current one and the one before it


def phase(name: str) -> None:
    """A publication phase: `RQ_TEXT_CACHE_KILL_AT=<name>` makes the builder SIGKILL
    itself here, so tests kill a real writer at each phase (staged, complete, renamed,
    pointed) rather than at a moment a clock happens to hit."""
    if os.environ.get("RQ_TEXT_CACHE_KILL_AT") == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


class Busy(Exception):
    """Another process is building this repository's generation right now."""


def directory(store: str, repository_id: int) -> Path:
    """A repository's cache directory. (A row id can be given again after `rq --drop`:
    a generation names its repository, and one for another is never served.)"""
    return text_cache_dir(store, repository_id)


def is_base(name: str) -> bool:
    """A full build's file name (`g-…`): what an overlay's `parent` must name."""
    return _BASE.fullmatch(name) is not None


def current(d: Path) -> Path | None:
    """The published file `current` names, or None (absent, or not a name we write)."""
    try:
        name = (d / "current").read_text().strip()
    except OSError:
        return None
    if not _GEN.fullmatch(name):
        return None
    return d / name


class writer:
    """The one-builder lock, taken without waiting (Busy when held). A class, not a
    contextmanager: contextlib costs ~3 ms of every cached text query's start."""

    def __init__(self, d: Path) -> None:
        self.d = d
        self.fd = -1

    def __enter__(self) -> None:
        import fcntl

        self.d.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.d / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise Busy(str(self.d)) from None

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        os.close(self.fd)  # (closing releases the lock)


def temporary(d: Path) -> Path:
    return d / f"tmp-{os.getpid()}-{os.urandom(4).hex()}.db"


def publish(d: Path, tmp: Path, seq: int, *, overlay: bool = False) -> Path:
    """Make a finished temporary generation current; its published path."""
    _fsync_file(tmp)
    final = d / f"{'d' if overlay else 'g'}-{seq}-{os.urandom(4).hex()}.db"
    os.rename(tmp, final)
    _fsync_dir(d)
    phase("renamed")
    ptr = d / f"current.{os.getpid()}.tmp"
    with open(ptr, "w") as f:
        f.write(final.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.rename(ptr, d / "current")
    _fsync_dir(d)
    phase("pointed")
    return final


def cleanup(d: Path) -> int:
    """Remove leftovers (under the writer lock): temporaries of dead builders, stray
    pointer temporaries, and published files beyond the newest KEEP that `current`
    does not name, except the bases of those kept. Returns how many files went."""
    cur = current(d)
    gens: list[tuple[float, Path]] = []
    gone = 0
    for p in d.iterdir():
        m = _TMP.fullmatch(p.name)
        if (
            m
            and not _alive(int(m.group(1)))
            or p.name.startswith("current.")
            and p.name.endswith(".tmp")
        ):
            gone += _unlink(p)
        elif _GEN.fullmatch(p.name) and p != cur:
            try:
                gens.append((p.stat().st_mtime, p))
            except OSError:
                pass
    gens.sort(reverse=True)
    kept = [p for p in (cur, *(p for _, p in gens[: KEEP - 1])) if p is not None]
    bases = {base_of(p) for p in kept}
    for _, p in gens[KEEP - 1 :]:
        if p.name not in bases:
            gone += _unlink(p)
    return gone


def base_of(p: Path) -> str | None:
    """An overlay's base file name (from its manifest), or None."""
    if is_base(p.name):
        return None
    import sqlite3

    from rq_engine.text.cache.manifest import BadGeneration, parse

    try:
        conn = sqlite3.connect(f"file:{p}?mode=ro&immutable=1", uri=True)
        try:
            row = conn.execute("SELECT body FROM manifest WHERE one = 1").fetchone()
        finally:
            conn.close()
        return None if row is None else parse(row[0]).parent
    except (sqlite3.Error, BadGeneration):
        return None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _unlink(p: Path) -> int:
    try:
        p.unlink()
        return 1
    except OSError:
        return 0


def _fsync_file(p: Path) -> None:
    fd = os.open(p, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
