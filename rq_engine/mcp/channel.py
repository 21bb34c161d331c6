"""The server's side of the engine process: start it, send it a call, read the reply, restart it.

The engine (mcp/engine.py) runs the tools in a process with one thread, so
that the indexing a call may do can fork its parse pool safely; the server
process, with anyio's threads, only ever starts it (fork + exec, which is safe
from any thread) and talks to it over two pipes, one JSON object a line.

The pipes are non-blocking and awaited on the server's event loop (no worker
thread per call: on a loaded machine each thread hand-off costs a scheduling
delay). One call at a time — the server serialises them, as QueryService
needs — so a reply is always the answer to the last request. A reply being
read survives a cancelled reader (`receive` resumes where it stopped), which
is how a call the client cancels is still read to its end. An engine that died
is reported for the call it died in and started again for the next.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any, NoReturn

from rq_engine.mcp.bound import dumps

# How long a closing server lets the engine finish its after-work (a warm with
# RQ_WARM_DETACH=0) before it stops it; the SDK's client kills the whole server
# tree 2 s after closing its stdin.
CLOSE_GRACE_S = 1.5
READ_BYTES = 1 << 16


class EngineDied(Exception):
    pass


class Engine:
    """The engine process of one server: its directory and scope, and the pipes to it."""

    def __init__(self, cwd: str, *, all_repos: bool = False) -> None:
        self.cwd = cwd
        self.all_repos = all_repos
        self._proc: subprocess.Popen[bytes] | None = None
        self._seq = 0
        self._buf = bytearray()
        self.start()

    def start(self) -> None:
        argv = [sys.executable, "-m", "rq_engine.mcp.engine"]
        if self.all_repos:
            argv.append("--all-repos")
        proc = subprocess.Popen(
            argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        assert proc.stdin is not None and proc.stdout is not None
        os.set_blocking(proc.stdin.fileno(), False)
        os.set_blocking(proc.stdout.fileno(), False)
        self._proc = proc
        self._buf.clear()

    async def send(self, tool: str, args: dict[str, Any]) -> None:
        """Write one request (starting an engine first if the last one is gone)."""
        import anyio

        proc = self._proc
        if proc is None or proc.poll() is not None:
            self._stop()
            self.start()
            proc = self._proc
        assert proc is not None and proc.stdin is not None
        self._seq += 1
        data = memoryview((dumps({"id": self._seq, "tool": tool, "args": args}) + "\n").encode())
        fd = proc.stdin.fileno()
        try:
            while data:
                try:
                    data = data[os.write(fd, data) :]
                except BlockingIOError:
                    await anyio.wait_writable(fd)
        except OSError:  # (BrokenPipeError: it died; `receive` reports it)
            pass

    async def receive(self) -> dict[str, Any]:
        """The reply to the last request: {"result": …} or {"error": "…"}."""
        import anyio

        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while not self._buf.endswith(b"\n"):
            try:
                chunk = os.read(fd, READ_BYTES)
            except BlockingIOError:
                await anyio.wait_readable(fd)
                continue
            except OSError:
                chunk = b""
            if not chunk:
                return self._died()
            self._buf += chunk
        raw, self._buf = bytes(self._buf), bytearray()
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or reply.get("id") != self._seq:
            return self._died()
        return reply

    def _died(self) -> NoReturn:
        code = self._stop(grace=0.5)  # (a dying process may not be reaped yet)
        raise EngineDied(
            f"the engine process {'exited (' + str(code) + ')' if code is not None else 'broke'};"
            " it is started again for the next call"
        )

    def interrupt(self) -> None:
        """Cancel the running call: the engine answers early (engine.py, SIGUSR1)."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGUSR1)

    def _stop(self, grace: float = 0.0) -> int | None:
        """End the current engine (closing its stdin first); its exit code, if it had one."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            return proc.wait(timeout=grace) if grace else _reap(proc)
        except subprocess.TimeoutExpired:
            return _reap(proc)
        finally:
            if proc.stdout is not None:
                proc.stdout.close()

    def close(self) -> None:
        """The server is leaving: let the engine finish what it is doing, briefly."""
        self._stop(CLOSE_GRACE_S)


def _reap(proc: subprocess.Popen[bytes]) -> int | None:
    code = proc.poll()
    if code is not None:
        return code
    proc.terminate()
    try:
        proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return None
