"""Running one git command: posix_spawn, its stdout on a pipe, a timeout, nothing else.

index/gitstate.py asks git its questions through this, importing it only then: the
search hot path never loads it on a hit (the stamp is read natively). Stdlib only.
"""

from __future__ import annotations

import os
import time

from rq_engine.index.gitstate import GIT_TIMEOUT

TYPE_CHECKING = False
if TYPE_CHECKING:
    StrPath = str | os.PathLike[str]


def git(root: StrPath, *args: str, timeout: float = GIT_TIMEOUT) -> bytes | None:
    """Run git in `root`; its stdout, or None when it fails or outlives `timeout`."""
    running = Running.start(root, args)
    return None if running is None else running.result(timeout)


class Running:
    """A git command started with posix_spawn, its stdout on a pipe.

    posix_spawn rather than subprocess: subprocess costs ~4 ms to import, and a miss
    that asks git pays it on top of git itself (posix_spawn is safe from the picker's
    threads too). git's stdin and stderr are /dev/null."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd

    @staticmethod
    def start(root: StrPath, args: tuple[str, ...]) -> Running | None:
        # `git -C ROOT`: git changes directory itself (posix_spawn has no cwd on 3.11)
        argv = ["git", "-C", os.fspath(root), "-c", "core.quotePath=false", *args]
        started = spawn("git", argv, env())
        return None if started is None else Running(*started)

    def result(self, timeout: float = GIT_TIMEOUT) -> bytes | None:
        """Its stdout once it exits 0; None when it fails or outlives `timeout`."""
        chunks: list[bytes] = []
        ok = True
        try:
            # (git done first, as on a miss's check on Django: no wait, nor select to load)
            if not self._drained(chunks):
                ok = self._wait(chunks, time.monotonic() + timeout)
        finally:
            os.close(self.fd)
            self.fd = -1
            if not ok:
                self.kill()
            _, status = os.waitpid(self.pid, 0)
        if not ok or os.waitstatus_to_exitcode(status) != 0:
            return None
        return b"".join(chunks)

    def _drained(self, chunks: list[bytes]) -> bool:
        """Read what git wrote without waiting; True when that was all of it."""
        os.set_blocking(self.fd, False)
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return False
            if not data:
                return True
            chunks.append(data)

    def _wait(self, chunks: list[bytes], end: float) -> bool:
        """Read the rest as git writes it: True once it closes its output, False at `end`."""
        import select  # (~0.2 ms to load: only while git is still running)

        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False  # hung: give up on it
            if self._drained(chunks):
                return True

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass

    def abandon(self) -> None:
        """Not wanted after all: stop it and reap it (nothing once `result` read it)."""
        if self.fd < 0:
            return
        self.kill()
        os.close(self.fd)
        self.fd = -1
        os.waitpid(self.pid, 0)


# Make every pathspec literal, or `*` stop at `/`: a narrowed status (fresh.check)
# would then miss edits, so the user's setting of these does not reach our git.
_PATHSPEC_ENV = ("GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS")


def env() -> dict[str, str]:
    """The environment every git rq runs gets: the caller's, less the pathspec modes."""
    return {k: v for k, v in os.environ.items() if k not in _PATHSPEC_ENV}


def spawn(file: str, argv: list[str], environ: dict[str, str]) -> tuple[int, int] | None:
    """Start `file` (a path, or a name looked up on PATH) with stdin and stderr on
    /dev/null and stdout on a pipe: (its pid, the pipe's read end), or None when it
    cannot start. The caller reads the pipe and reaps the pid."""
    r, w = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawnp(
            file,
            argv,
            environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0),
                (os.POSIX_SPAWN_DUP2, w, 1),
                (os.POSIX_SPAWN_DUP2, null, 2),
                (os.POSIX_SPAWN_CLOSE, r),
            ],
        )
    except OSError:
        os.close(r)
        return None
    finally:
        os.close(w)
        os.close(null)
    return pid, r
