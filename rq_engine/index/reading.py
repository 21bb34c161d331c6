"""How the indexer opens and decodes a source file: never through a symlink, never a special file. Stdlib only.

Git stores a symlink as a link, not as the file it names, and so does rq: a
symlink (to a file inside the repository or outside it, to `/proc/self/status`,
dangling, or a loop) is never followed. Its target, when git lists it, is
indexed under its own path. A FIFO, socket or device is answered from its
`lstat` and never opened (opening a FIFO waits for a writer; opening a device
can act on it), and neither is anything on `/proc`, `/sys` or `/dev`, whose
"regular" files are views of the machine, not source. A regular file is opened
with O_NOFOLLOW (a symlink swapped in after the `lstat` fails the open) and read
up to the size its `fstat` gave.

Bytes that are not UTF-8 are decoded one byte at a time as Windows-1252 (the
five bytes it leaves undefined as Latin-1), and the rest of the file as UTF-8:
`caf\\xe9_latin` stays one identifier, `café_latin`, where a UTF-8 reading cuts
it at the bad byte. No such byte stands for a newline, so every line number
stays where it was.

Must not import tree-sitter, SQLite or any plugin: the warming tiers read with it.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat

# Why a path is not read. A symlink is "skipped" (git's own view: a link, no
# content); the others are failures of a file that should have been source.
SYMLINK = "symlink"
SPECIAL = "not a regular file"
PSEUDO = "on /proc, /sys or /dev"

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the lstat must not block the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class Refused(OSError):
    """A path rq does not read: `reason` is SYMLINK, SPECIAL or PSEUDO."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_pseudo_devs: frozenset[int] | None = None


def _pseudo() -> frozenset[int]:
    """The device numbers of /proc, /sys and /dev (once per process: three stats)."""
    global _pseudo_devs
    if _pseudo_devs is None:
        devs = set()
        for d in ("/proc", "/sys", "/dev"):
            try:
                devs.add(os.stat(d).st_dev)
            except OSError:
                pass
        try:
            devs.discard(os.stat("/").st_dev)  # a system without those mounts
        except OSError:
            pass
        _pseudo_devs = frozenset(devs)
    return _pseudo_devs


def behind_link(root: str, rel: str) -> bool:
    """Whether a directory on the way to `rel` (repo-relative, `/`-separated) is a
    symlink. An lstat of the path goes through it, yet git lists nothing beyond a
    link, and neither does rq: `pkg` replaced by a link to `pkg2` leaves `pkg/x.py`
    deleted, and its rows would outlive it (`pkg2/x.py` indexed beside them)."""
    d = rel.rpartition("/")[0]
    while d:
        try:
            if stat.S_ISLNK(os.lstat(os.path.join(root, d)).st_mode):
                return True
        except OSError:
            return False
        d = d.rpartition("/")[0]
    return False


def check(st: os.stat_result) -> None:
    """Raise Refused unless `st` (an lstat) is a regular file rq may open."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        raise Refused(SYMLINK)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory")
    if not stat.S_ISREG(mode):
        raise Refused(SPECIAL)
    if st.st_dev in _pseudo():
        raise Refused(PSEUDO)


def open_source(full: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor on the regular file `full` and its fstat.

    Raises Refused (a symlink, a special or pseudo file: never opened),
    IsADirectoryError (a submodule, a directory where a file was listed),
    FileNotFoundError or another OSError.
    """
    check(os.lstat(full))
    fd = os.open(full, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        check(st)  # replaced between the lstat and the open
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_source(full: str, cap: int) -> bytes:
    """The first `cap` bytes of the regular file `full` (never more than its fstat size)."""
    fd, st = open_source(full)
    try:
        return read_fd(fd, min(cap, st.st_size))
    finally:
        os.close(fd)


def read_fd(fd: int, n: int) -> bytes:
    """At most `n` bytes from an open descriptor (fewer at its end)."""
    chunks = []
    while n > 0:
        b = os.read(fd, n)
        if not b:
            break
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


# --- decoding -------------------------------------------------------------------


def _table() -> tuple[str, ...]:
    out = []
    for b in range(256):
        try:
            out.append(bytes([b]).decode("cp1252"))
        except UnicodeDecodeError:
            out.append(chr(b))  # 0x81 0x8D 0x8F 0x90 0x9D: Latin-1's C1 controls
    return tuple(out)


_CP1252 = _table()


def _per_byte(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    bad = exc.object[exc.start : exc.end]
    return "".join(_CP1252[b] for b in bad), exc.end


codecs.register_error("rq-cp1252", _per_byte)


def decode(data: bytes) -> str:
    """`data` as text: UTF-8, each byte that is not decoded as Windows-1252."""
    return data.decode("utf-8", errors="rq-cp1252")


def utf8_source(data: bytes) -> tuple[bytes, bool]:
    """What the parser reads: `data` itself when it is UTF-8 (True), else `decode(data)`
    re-encoded (False) — same lines, identifiers whole."""
    if data.isascii():  # most source: a scan, no decoded copy (27 -> 7 ms over the JDK slice)
        return data, True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return decode(data).encode("utf-8"), False
    return data, True
