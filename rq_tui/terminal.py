"""The picker's terminal: draw on, read from and size by the controlling terminal (/dev/tty).

Textual's LinuxDriver writes to stderr, reads stdin, and sizes the screen with
shutil.get_terminal_size(), which asks stdout (then $COLUMNS/$LINES, then
80x24). With stdout captured (`x=$(rq --print Foo)`, an editor job, a shell
widget) that drew an 80x24 picker in a 160x45 terminal. fzf opens /dev/tty for
all three; so does this driver, and it asks the tty itself for the size on
start and on every SIGWINCH ($COLUMNS/$LINES are a shell's stale copy).

Without a controlling terminal (/dev/tty cannot be opened) it is Textual's own
driver, unchanged.
"""

from __future__ import annotations

import os
import select
import threading

from textual.drivers.linux_driver import LinuxDriver


def open_tty() -> int | None:
    """A read-write descriptor on the controlling terminal, or None when there is none."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    if not os.isatty(fd):
        os.close(fd)
        return None
    return fd


class TtyDriver(LinuxDriver):
    """LinuxDriver on /dev/tty: output, input and size all from the controlling terminal."""

    tty_fd: int | None = None

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        fd = open_tty()
        if fd is None:
            return
        self.tty_fd = fd
        # A separate descriptor for writing: the writer thread's flushes then never
        # contend with the key thread's reads on one file object.
        out = open(os.dup(fd), "w", encoding="utf-8", errors="replace", closefd=True)
        self._file = out
        self.fileno = fd
        self.input_tty = True
        threading.Thread(target=_exit_on_hangup, args=(fd,), name="rq-tty-hup", daemon=True).start()

    def _get_terminal_size(self) -> tuple[int, int]:
        if self.tty_fd is not None:
            try:
                size = os.get_terminal_size(self.tty_fd)
                if size.columns and size.lines:
                    return size.columns, size.lines
            except OSError:
                pass
        return super()._get_terminal_size()

    # (No close(): Textual may restore the terminal's modes after closing the driver;
    # the descriptors go with the process, which ends once the picker has.)


def _exit_on_hangup(fd: int) -> None:
    """End the picker when its terminal goes away (a closed window, a dropped ssh
    session, a killed tmux pane that sent no SIGHUP to this process group). Textual's
    input loop reads end-of-file from a hung-up tty and tries again at once: a picker
    left behind spun a core for as long as nobody killed it. This thread sleeps in
    poll() until the hangup, then exits as a shell's child does on SIGHUP (129)."""
    p = select.poll()
    p.register(fd, 0)  # (hangup and error are always reported)
    while True:
        try:
            events = p.poll()
        except InterruptedError:
            continue
        except OSError:
            return
        if any(ev & select.POLLNVAL for _, ev in events):
            return  # (the descriptor was closed: nothing left to watch)
        if any(ev & (select.POLLHUP | select.POLLERR) for _, ev in events):
            os._exit(129)


def driver_class() -> type[LinuxDriver]:
    return TtyDriver
