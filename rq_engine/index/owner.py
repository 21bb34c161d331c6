"""Which live process owns something: a pid plus that process's start time. Stdlib only.

A pid alone does not name a process: once the owner dies, the kernel hands
its number to the next process started, and a lock stamped with the bare pid
then looks held forever (a cold pass's FTS suspension was never repaired
while an unrelated process held the dead writer's pid). The start time, in
clock ticks since boot from /proc/PID/stat, tells the two apart. Where /proc
is missing the check degrades to "a process with that pid exists".
"""

from __future__ import annotations

import os

from rq_engine.core.record import Record


class Owner(Record):
    """A process: its pid and start time (0 when the platform has no /proc)."""

    __slots__ = ("pid", "start")
    pid: int
    start: int

    def __init__(self, pid: int, start: int) -> None:
        self.pid = pid
        self.start = start

    def as_json(self) -> dict[str, int]:
        return {"pid": self.pid, "start": self.start}

    @staticmethod
    def from_json(obj: object) -> Owner | None:
        if not isinstance(obj, dict):
            return None
        try:
            return Owner(int(obj.get("pid", 0)), int(obj.get("start", 0)))
        except (TypeError, ValueError):
            return None


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot; None when it does not exist.

    0 when the platform cannot tell (no /proc) but the process exists.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else _exists_or_none(pid)
    except OSError:
        return _exists_or_none(pid)
    # The command name (field 2) is in parentheses and may hold spaces or ')'.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if fields[:1] in ([b"Z"], [b"X"]):
        return None  # a zombie has exited: its parent just has not reaped it yet
    try:
        return int(fields[19])  # field 22 overall: starttime
    except (IndexError, ValueError):
        return 0


def _exists_or_none(pid: int) -> int | None:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return 0
    return 0


def me() -> Owner:
    pid = os.getpid()
    return Owner(pid, start_time(pid) or 0)


def of(pid: int) -> Owner | None:
    """The live process with this pid, or None."""
    st = start_time(pid)
    return None if st is None else Owner(pid, st)


def alive(owner: Owner) -> bool:
    """True while that very process runs (not merely a process with its pid)."""
    if owner.pid <= 0:
        return False
    st = start_time(owner.pid)
    if st is None:
        return False
    # A start time of 0 on either side means "unknown": trust the pid.
    return st == owner.start or not st or not owner.start
