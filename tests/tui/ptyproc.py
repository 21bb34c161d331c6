"""Run a real process on a pseudo-terminal: type keys into it, read what it draws, get its exit code.

The picker needs a terminal (it draws on stderr and reads keys from stdin);
stdout can stay a pipe so a test sees exactly what `--print` wrote.

What it drew is kept twice: as the stream (`text`: everything ever written, escapes
removed) and as the screen a terminal would show now (`screen`, a pyte model). A
needle is found in either: Textual rewrites only the cells that changed, so a
status line going from "1 result" to "2 results" reaches the stream as a lone "2"
and "s", and only the screen holds the words whole.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyte

ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]"
)


class PtyProcess:
    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        size: tuple[int, int] = (100, 30),
        stdout_pipe: bool = False,
        size_env: bool = True,
    ) -> None:
        """`size_env`: also export COLUMNS/LINES (False: the size is only the pty's, as
        in a shell that does not export them). The pty becomes the child's controlling
        terminal, so /dev/tty opens in it as in a real terminal session."""
        self.master, slave = os.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**env, "TERM": "xterm-256color"}
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        if size_env:
            env |= {"COLUMNS": str(cols), "LINES": str(rows)}
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=subprocess.PIPE if stdout_pipe else slave,
            stderr=slave,
            start_new_session=True,
            close_fds=True,
            # (after setsid: the new session takes the pty on stdin as its terminal)
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self._buf = bytearray()
        self._screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self._screen)
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stdout = ""

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if ready:
                    data = os.read(self.master, 65536)
                    if not data:
                        return
                    with self._lock:
                        self._buf += data
                        self._stream.feed(data)
                elif self.proc.poll() is not None:
                    return
            except OSError:
                return

    @property
    def raw(self) -> str:
        with self._lock:
            return self._buf.decode("utf-8", "replace")

    @property
    def text(self) -> str:
        """What was drawn, escape sequences removed (cursor moves make it non-linear)."""
        return ANSI.sub("", self.raw)

    @property
    def screen(self) -> str:
        """The terminal's rows as a terminal shows them now, one line each."""
        with self._lock:
            return "\n".join(line.rstrip() for line in self._screen.display)

    def drew(self, needle: str) -> bool:
        """Whether `needle` was ever written whole, or is on the screen now."""
        return needle in self.text or needle in self.screen

    def expect(self, needle: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.drew(needle):
                return
            if self.proc.poll() is not None:
                time.sleep(0.1)
                if self.drew(needle):
                    return
                break
            time.sleep(0.02)
        raise AssertionError(
            f"{needle!r} never appeared; the screen now:\n{self.screen}\n"
            f"the last of the stream:\n{self.text[-1500:]}"
        )

    def resize(self, cols: int, rows: int) -> None:
        """Resize the terminal as a window manager would (the kernel sends SIGWINCH)."""
        with self._lock:
            self._screen.resize(rows, cols)
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def expect_raw(self, check: Callable[[str], bool], what: str, timeout: float = 20.0) -> None:
        """Wait until `check(raw output)` holds (the output, escapes and all)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check(self.raw):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"never drawn: {what}; the screen now:\n{self.screen}")

    def send(self, data: str | bytes) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def type(self, text: str, delay: float = 0.03) -> None:
        for ch in text:
            self.send(ch)
            time.sleep(delay)

    def wait(self, timeout: float = 20.0) -> int:
        try:
            if self.proc.stdout is not None:
                out, _ = self.proc.communicate(timeout=timeout)
                self.stdout = out.decode()
            code = self.proc.wait(timeout=timeout)
            # Drain what the process wrote just before exiting: closing the master
            # first would lose it (seen under load as an empty screen).
            self._reader.join(timeout=5)
            return code
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        try:
            os.close(self.master)
        except OSError:
            pass
