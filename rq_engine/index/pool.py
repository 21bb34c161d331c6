"""Parsing fan-out: a fork-context process pool (or in-process for a handful of files).

Yields parse results as workers finish them, plus a None heartbeat every
`stop_poll` seconds so the indexer can commit a batch and check its deadline
and cancel flag while parsing is slow. Imports plugins (tree-sitter) only when
there is something to parse; never touches SQLite.
"""

from __future__ import annotations

import os
from collections.abc import Generator

from rq_engine.index.parse import FAILED, Job, Parsed, parse_job
from rq_engine.lang import registry

# Below this many files to parse, forking a pool (~15 ms a worker plus result
# pickling) costs more than it saves: parse in-process.
IN_PROCESS_MAX = 32


def parse_all(
    root: str, jobs: list[Job], limit: int, workers: int | None, *, stop_poll: float
) -> Generator[Parsed | None, None, None]:
    """Yield parse results as they come; None every `stop_poll` s while waiting, so the
    caller can flush a batch and check its deadline/cancel flag even while parsing is slow."""
    if not jobs:
        return
    langs = sorted({j.language for j in jobs})
    usable = _load_plugins(langs)
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n <= 1 or len(jobs) <= IN_PROCESS_MAX:
        for j in jobs:
            yield parse_job(root, j, limit) if j.language in usable else _no_plugin(j, usable)
        return
    import multiprocessing as mp

    from rq_engine.index.parse import worker_init, worker_parse

    runnable = [j for j in jobs if j.language in usable]
    for j in jobs:
        if j.language not in usable:
            yield _no_plugin(j, usable)
    if not runnable:
        return
    # fork: workers inherit the imported plugins and compiled queries (~60 ms of
    # imports each that spawn would repeat); they never touch the parent's SQLite.
    ctx = mp.get_context("fork")
    chunk = max(1, min(16, len(runnable) // (n * 8)))
    chunks = [runnable[i : i + chunk] for i in range(0, len(runnable), chunk)]
    pool = ctx.Pool(min(n, len(chunks)), worker_init, (root, limit))
    try:
        # chunksize=1 over explicit chunks: only then is the iterator the one
        # whose next() takes a timeout (bigger chunksizes wrap it in a generator).
        it = pool.imap_unordered(worker_parse, chunks, chunksize=1)
        left = len(chunks)
        while left:
            try:
                got = it.next(timeout=stop_poll)
            except mp.TimeoutError:
                yield None
                continue
            left -= 1
            yield from got
        pool.close()
    finally:
        pool.terminate()
        pool.join()


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
