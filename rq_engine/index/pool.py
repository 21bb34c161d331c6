"""Parsing fan-out: forked worker processes (or in-process for a handful of files).

Yields parse results as workers finish them, plus a None heartbeat every
`stop_poll` seconds so the indexer can commit a batch and check its deadline
and cancel flag while parsing is slow. Imports plugins (tree-sitter) only when
there is something to parse; never touches SQLite (a forked worker must not
use the parent's connection: it only parses and writes to its pipe).

Plain os.fork and pipes, not multiprocessing: Pool's three helper threads
(task feeder, result handler, worker watchdog) and per-task pickling cost the
parent ~0.4 s of CPU on a Django cold pass, and even multiprocessing.Process
with a shared counter cost ~25 ms of imports (ctypes, socket, pickle) before
the first file was parsed. Here the chunk numbers wait in a "ticket" pipe
(4 bytes each, written before the fork when they fit): each worker reads the
next one (a pipe read of 4 bytes is atomic) until the pipe is closed and empty, and sends each
chunk's results as one length-prefixed marshal blob on its own pipe. A worker
that dies (a crash in a grammar) loses only the chunks whose results it had
not sent (_work): those files are reported failed instead of hanging the pass.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Generator

from rq_engine.index import crashpoints
from rq_engine.index.parse import FAILED, NO_PLUGIN, Job, Parsed, as_tuple, parse_job
from rq_engine.lang import registry

# Below this many files to parse, forking workers (~15 ms each) costs more than
# it saves: parse in-process.
IN_PROCESS_MAX = 32
# Files a worker claims at a time: 16 keeps the counter and pipe traffic at ~200
# round trips for Django while the last chunk (~15 ms of parsing) bounds the
# imbalance at the end.
MAX_CHUNK = 16
# Workers run this much nicer than the parent, so the parent's writes never queue
# behind parsing: a batch left in a pipe when the workers finish is work nothing
# overlaps. Without it the parent trailed the workers by 0.1-0.2 s on a Django
# cold pass; the parent needs ~40% of one core, so the workers lose little.
WORKER_NICE = 10
# A worker's result pipe (see _widen): Django's whole result stream is ~3 MB.
PIPE_BYTES = 1 << 20


def parse_all(
    root: str,
    jobs: list[Job],
    limit: int,
    workers: int | None,
    *,
    stop_poll: float,
    keys: bool = False,
    prefill: int | None = None,
) -> Generator[Parsed | None, None, None]:
    """Yield parse results as they come; None every `stop_poll` s while waiting, so the
    caller can flush a batch and check its deadline/cancel flag even while parsing is slow.
    With `keys` (a cold pass), pool workers also key the names they see (Parsed.keys);
    in-process parsing leaves that to the caller, which has no one to hand it to.

    `prefill` caps the chunk tickets written before the workers are forked (None: as
    many as the ticket pipe holds, 16,384 on Linux); the rest are fed from the poll
    loop as the workers drain the pipe. A pass only feeds them so past ~260k files;
    a test takes that path with a handful."""
    if not jobs:
        return
    langs = sorted({j.language for j in jobs})
    usable = _load_plugins(langs)
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n <= 1 or len(jobs) <= IN_PROCESS_MAX:
        for j in jobs:
            yield parse_job(root, j, limit) if j.language in usable else _no_plugin(j, usable)
        return
    runnable = [j for j in jobs if j.language in usable]
    for j in jobs:
        if j.language not in usable:
            yield _no_plugin(j, usable)
    if not runnable:
        return
    chunk = max(1, min(MAX_CHUNK, len(runnable) // (n * 8)))
    chunks = [runnable[i : i + chunk] for i in range(0, len(runnable), chunk)]
    yield from _forked(root, chunks, limit, min(n, len(chunks)), stop_poll, keys, prefill)


def _forked(
    root: str,
    chunks: list[list[Job]],
    limit: int,
    n: int,
    stop_poll: float,
    keys: bool,
    prefill: int | None,
) -> Generator[Parsed | None, None, None]:
    import select
    import signal  # (as select: only a pass that forks; a query's one edited file does not)

    tickets = memoryview(b"".join(i.to_bytes(4, "little") for i in range(len(chunks))))
    pids: list[int] = []
    pipes: dict[int, bytearray] = {}  # result pipe fd -> bytes received, not yet framed
    done: set[int] = set()
    t_read = t_write = -1
    try:
        t_read, t_write = os.pipe()
        os.set_blocking(t_write, False)
        # usually all of them, before any fork
        ahead = len(tickets) if prefill is None else min(len(tickets), 4 * max(0, prefill))
        unsent = _send_tickets(t_write, tickets[:ahead])
        tickets = tickets[ahead - len(unsent) :]  # what did not fit, then what was held back
        for _ in range(n):
            _fork_worker(pids, pipes, t_read, t_write, root, limit, chunks, keys)
        os.close(t_read)
        t_read = -1
        poller = select.poll()
        for fd in pipes:
            poller.register(fd, select.POLLIN)
        if tickets:  # a pipe smaller than the tickets: feed it as workers drain it
            poller.register(t_write, select.POLLOUT)
        else:
            os.close(t_write)  # an empty ticket pipe is now EOF: workers stop there
            t_write = -1
        live = set(pipes)
        while live:
            ready = poller.poll(stop_poll * 1000)
            if not ready:
                yield None
                continue
            for fd, _ in ready:
                if fd == t_write:
                    # (every worker gone: the rest of the tickets are dropped, and
                    # their chunks reported failed below)
                    tickets = _send_tickets(t_write, tickets)
                    if not tickets:
                        poller.unregister(t_write)
                        os.close(t_write)
                        t_write = -1
                    continue
                data = os.read(fd, PIPE_BYTES)
                if not data:  # EOF: the worker finished (or died: see below)
                    poller.unregister(fd)
                    live.discard(fd)
                    continue
                buf = pipes[fd]
                buf += data
                while len(buf) >= 4:
                    size = int.from_bytes(buf[:4], "little")
                    if len(buf) < 4 + size:
                        break
                    index, results = marshal.loads(bytes(buf[4 : 4 + size]))
                    del buf[: 4 + size]
                    done.add(index)
                    for t in results:
                        yield Parsed(*t)
        codes = sorted({_reap(pid) for pid in pids} - {0})
        pids = []
        for i, jobs in enumerate(chunks):
            if i not in done:  # claimed by a worker that died before sending it
                why = f"parse worker died (exit code {', '.join(map(str, codes)) or '?'})"
                for j in jobs:
                    yield Parsed(j.path, j.language, FAILED, reason=why)
    finally:
        # Pipes first: a worker still writing gets EPIPE and a reader EOF, so none
        # can block while it is waited for; then SIGTERM (default action: workers
        # reset it) for one still parsing.
        for fd in (*pipes, t_read, t_write):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for pid in pids:
            _reap(pid)


def _fork_worker(
    pids: list[int],
    pipes: dict[int, bytearray],
    t_read: int,
    t_write: int,
    root: str,
    limit: int,
    chunks: list[list[Job]],
    keys: bool,
) -> None:
    """Fork one worker; record its pid and result pipe (closed here if the fork fails).

    SIGINT is blocked across the fork, so a Ctrl-C can neither run the parent's
    cleanup inside the child nor leave a worker the parent has not recorded."""
    import signal

    r, w = os.pipe()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        _widen(w)
        pid = os.fork()
        if pid == 0:  # the worker: parse, report, and leave without any cleanup
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's way to stop us
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
                os.nice(WORKER_NICE)
                for fd in (r, t_write, *pipes):
                    os.close(fd)  # only the parent writes tickets; EOF must reach it
                _work(w, t_read, root, limit, chunks, keys)
            except BaseException as e:
                code = 70
                try:
                    os.write(2, f"rq: parse worker failed: {e!r}\n"[:500].encode())
                except OSError:
                    pass
            os._exit(code)  # never run the parent's atexit/finalizers (SQLite)
        pids.append(pid)
        pipes[r] = bytearray()
        r = -1
    finally:
        os.close(w)
        if r >= 0:
            os.close(r)  # the fork failed
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _send_tickets(fd: int, tickets: memoryview) -> memoryview:
    """Write what fits of `tickets` to the non-blocking ticket pipe; the rest is returned.
    In pieces of at most PIPE_BUF (4096) bytes, which a pipe writes whole or not at
    all, so a reader never finds half a ticket."""
    while tickets:
        try:
            os.write(fd, tickets[:4096])
        except BlockingIOError:
            break
        except BrokenPipeError:  # no worker left to read them
            return tickets[:0]
        tickets = tickets[4096:]
    return tickets


def _reap(pid: int) -> int:
    """Wait for a worker; its exit code (a signal's number, negated, if it was killed)."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return 0
    return os.waitstatus_to_exitcode(status)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _widen(fd: int) -> None:
    """Give a worker's result pipe 1 MiB (Linux; the default is 64 KiB) so the worker
    never blocks on a send while the parent is busy writing a batch: with 64 KiB,
    two chunks of results filled it and the workers idled through the parent's
    transactions (~0.35 s of a 2.7 s Django cold pass). Best effort: elsewhere, or
    above /proc/sys/fs/pipe-max-size, the pipe keeps its size."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (ImportError, OSError):
        pass


def _work(
    out: int, tickets: int, root: str, limit: int, chunks: list[list[Job]], keys: bool
) -> None:
    """A worker: take chunk tickets until none are left, send each chunk's results.

    Sends without blocking: while the parent writes a batch it reads no pipe, and
    a worker whose pipe is full keeps what does not fit and parses its next chunk
    instead of idling (on a Linux cold pass both workers did, ~0.3-0.6 s each, with
    a core left idle). What it holds goes with the next send, and all of it at the
    end. So a worker that dies loses the chunk it was parsing and any results the
    parent had no time to take yet; the parent reports every such chunk failed."""
    seen: set[str] | None = set() if keys else None  # names this worker keyed already
    held = bytearray()
    os.set_blocking(out, False)
    while True:
        ticket = os.read(tickets, 4)
        if len(ticket) < 4:
            break  # no tickets left
        index = int.from_bytes(ticket, "little")
        crashpoints.phase("worker")
        crashpoints.phase("chunk", index + 1)
        blob = marshal.dumps(
            (index, [as_tuple(parse_job(root, j, limit, seen)) for j in chunks[index]])
        )
        held += len(blob).to_bytes(4, "little")
        held += blob
        _send_some(out, held)
    os.set_blocking(out, True)
    _write_all(out, held)
    os.close(out)


def _send_some(fd: int, held: bytearray) -> None:
    """Write what the non-blocking pipe `fd` takes of `held` now; drop it from `held`."""
    while held:
        try:
            n = os.write(fd, held)
        except BlockingIOError:
            return
        del held[:n]


def _load_plugins(langs: list[str]) -> dict[str, str]:
    """Import (and warm: compile queries on an empty source) each language's plugin
    in the parent, before any fork. Returns usable languages (value "") and, for a
    plugin that fails to load, the reason under the key "!lang"."""
    usable: dict[str, str] = {}
    for lang in langs:
        try:
            registry.plugin(lang).extract(b"")
            usable[lang] = ""
        except Exception as e:
            usable["!" + lang] = f"{NO_PLUGIN} for {lang}: {e}"[:200]
    return usable


def _no_plugin(job: Job, usable: dict[str, str]) -> Parsed:
    return Parsed(
        job.path,
        job.language,
        FAILED,
        reason=usable.get("!" + job.language, f"{NO_PLUGIN} for {job.language}"),
    )
