"""Parsing fan-out: forked worker processes (or in-process for a handful of files).

Yields parse results as workers finish them, plus a None heartbeat every
`stop_poll` seconds so the indexer can commit a batch and check its deadline
and cancel flag while parsing is slow. Imports plugins (tree-sitter) only when
there is something to parse; never touches SQLite (a forked worker must not
use the parent's connection: it only parses and writes to its pipe).

Not multiprocessing.Pool: its three helper threads (task feeder, result
handler, worker watchdog) and per-task pickling cost the parent ~0.4 s of CPU
on a Django cold pass (of ~1.8 s), and the parent — which also writes every
batch — is on the critical path. Here each worker claims the next chunk from a
shared counter and sends its results as one marshal blob per chunk; the parent
only waits on the pipes. A worker that dies (a crash in a grammar) loses only
the chunk it held: those files are reported failed instead of hanging the pass.
"""

from __future__ import annotations

import marshal
import os
import signal
from collections.abc import Generator
from typing import Any

from rq_engine.index.parse import FAILED, Job, Parsed, as_tuple, parse_job
from rq_engine.lang import registry

# Below this many files to parse, forking workers (~15 ms each) costs more than
# it saves: parse in-process.
IN_PROCESS_MAX = 32
# Files a worker claims at a time: 16 keeps the counter and pipe traffic at ~200
# round trips for Django while the last chunk (~15 ms of parsing) bounds the
# imbalance at the end.
MAX_CHUNK = 16
# A worker's pipe (see _widen): Django's whole result stream is ~3 MB.
PIPE_BYTES = 1 << 20


def parse_all(
    root: str,
    jobs: list[Job],
    limit: int,
    workers: int | None,
    *,
    stop_poll: float,
    keys: bool = False,
) -> Generator[Parsed | None, None, None]:
    """Yield parse results as they come; None every `stop_poll` s while waiting, so the
    caller can flush a batch and check its deadline/cancel flag even while parsing is slow.
    With `keys` (a cold pass), pool workers also key the names they see (Parsed.keys);
    in-process parsing leaves that to the caller, which has no one to hand it to."""
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
    yield from _forked(root, chunks, limit, min(n, len(chunks)), stop_poll, keys)


def _forked(
    root: str, chunks: list[list[Job]], limit: int, n: int, stop_poll: float, keys: bool
) -> Generator[Parsed | None, None, None]:
    import multiprocessing as mp
    from multiprocessing.connection import wait

    # fork: workers inherit the imported plugins, compiled queries and the job
    # list itself (~60 ms of imports each that spawn would repeat).
    ctx = mp.get_context("fork")
    counter = ctx.RawValue("i", 0)
    lock = ctx.Lock()
    procs: list[Any] = []
    conns: list[Any] = []
    done: set[int] = set()
    try:
        for _ in range(n):
            r, w = ctx.Pipe(duplex=False)
            _widen(w.fileno())
            p = ctx.Process(
                target=_work, args=(w, root, limit, chunks, counter, lock, keys), daemon=True
            )
            p.start()
            w.close()
            procs.append(p)
            conns.append(r)
        live = list(conns)
        while live:
            ready: list[Any] = wait(live, timeout=stop_poll)
            if not ready:
                yield None
                continue
            for c in ready:
                try:
                    index, results = marshal.loads(c.recv_bytes())
                except (EOFError, OSError):
                    live.remove(c)  # finished (or died: see below)
                    continue
                done.add(index)
                for t in results:
                    yield Parsed(*t)
        for p in procs:
            p.join()
        codes = {p.exitcode for p in procs} - {0}
        for i, jobs in enumerate(chunks):
            if i not in done:  # claimed by a worker that died before sending it
                for j in jobs:
                    why = f"parse worker died (exit code {', '.join(map(str, codes))})"
                    yield Parsed(j.path, j.language, FAILED, reason=why)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join()
        for c in conns:
            c.close()


def _widen(fd: int) -> None:
    """Give a worker's pipe 1 MiB (Linux; the default is 64 KiB) so a worker never
    blocks on a send while the parent is busy writing a batch: with 64 KiB, two
    chunks of results filled it and the workers idled through the parent's
    transactions (~0.35 s of a 2.7 s Django cold pass). Best effort: elsewhere, or
    above /proc/sys/fs/pipe-max-size, the pipe keeps its size."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except (ImportError, OSError):
        pass


def _work(
    conn: Any,
    root: str,
    limit: int,
    chunks: list[list[Job]],
    counter: Any,
    lock: Any,
    keys: bool,
) -> None:
    """A worker: claim chunks until none are left, send each chunk's results."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    seen: set[str] | None = set() if keys else None  # names this worker keyed already
    while True:
        with lock:
            index = counter.value
            counter.value = index + 1
        if index >= len(chunks):
            break
        out = [as_tuple(parse_job(root, j, limit, seen)) for j in chunks[index]]
        conn.send_bytes(marshal.dumps((index, out)))
    conn.close()


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
            usable["!" + lang] = f"no plugin for {lang}: {e}"[:200]
    return usable


def _no_plugin(job: Job, usable: dict[str, str]) -> Parsed:
    return Parsed(
        job.path,
        job.language,
        FAILED,
        reason=usable.get("!" + job.language, f"no plugin for {job.language}"),
    )
