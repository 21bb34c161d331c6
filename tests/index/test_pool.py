"""The fork pool: every file parsed once however its tickets reach the workers, a dead
worker costs only its chunk, no worker outlives the pass.

Workers are killed for real, at a named point (RQ_INDEX_KILL_AT, rq_engine/index/
crashpoints.py), in a real `rq --index` or a process driving the pool."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from rq_engine.index import pool
from rq_engine.index.parse import Job
from tests.conftest import ROOT, Repo, Run
from tests.index.conftest import dump, truth

FILES = {f"m{i:03}.py": f"class K{i}:\n    def m{i}(self):\n        pass\n" for i in range(120)}
# rq --index parses in-process below 33 files or on one CPU (docs/INDEXING.md): no worker
needs_workers = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="one CPU: rq --index parses in-process, with no worker"
)


def _no_children() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("prefill", [0, 1])
def test_tickets_held_back_are_fed_while_the_workers_drain_the_pipe(
    make_repo: Callable[..., Repo], prefill: int
) -> None:
    """Past ~260k files the tickets outgrow their pipe and the parent feeds the rest as
    the workers take them: every file is still parsed exactly once."""
    repo = make_repo(FILES)
    jobs = [Job(p, "python", None) for p in sorted(FILES)]
    results = pool.parse_all(str(repo.root), jobs, 1 << 20, 2, stop_poll=0.05, prefill=prefill)
    got = [r for r in results if r is not None]
    assert sorted(r.path for r in got) == sorted(FILES)  # each once
    assert {r.status for r in got} == {"ok"}
    rows = sorted(
        (r.path, n, k, line, end, parent) for r in got for n, k, _, line, end, parent in r.rows
    )
    assert rows == truth(repo.root)
    assert _no_children()


def test_closing_the_results_early_reaps_every_worker(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(FILES)
    jobs = [Job(p, "python", None) for p in sorted(FILES)]
    results = pool.parse_all(str(repo.root), jobs, 1 << 20, 2, stop_poll=0.05)
    first = next(r for r in results if r is not None)
    assert first.status == "ok"
    results.close()  # a cancelled pass: the workers are stopped and waited for
    assert _no_children()


def test_workers_that_all_die_with_tickets_held_back_fail_their_files(
    make_repo: Callable[..., Repo],
) -> None:
    """Every worker dies at its first chunk while tickets are held back from the pipe:
    whether the parent feeds them before the last reader is gone or after (the pipe is
    then broken), every file is reported failed and the pool neither hangs nor raises
    BrokenPipeError (which the CLI takes for a closed stdout)."""
    repo = make_repo(FILES)
    script = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
from rq_engine.index import pool
from rq_engine.index.parse import Job
jobs = [Job(p, "python", None) for p in {sorted(FILES)!r}]
got = [r for r in pool.parse_all({str(repo.root)!r}, jobs, 1 << 20, 2, stop_poll=0.05, prefill=1)
       if r is not None]
print(len(got), sorted({{(r.status, r.reason) for r in got}}))
try:
    os.waitpid(-1, os.WNOHANG)
    print("a worker outlived the pass")
except ChildProcessError:
    pass
"""
    env = {**os.environ, "RQ_INDEX_KILL_AT": "worker"}
    p = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    died = "parse worker died (exit code -9)"
    assert p.stdout == f"120 [('failed', {died!r})]\n", p.stdout + p.stderr


@needs_workers
def test_a_worker_that_dies_costs_only_its_chunk_and_the_next_pass_recovers_it(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """A parse worker killed (a grammar crashing) while it holds the pass's second chunk:
    those files are reported failed, every other file is indexed, the pass completes,
    and the next `rq --index` indexes the failed ones."""
    from rq_engine.store.db import connect

    repo = make_repo(FILES)
    r = rq("--index", str(repo.root), env={"RQ_INDEX_KILL_AT": "chunk:2"})
    assert r.code == 0 and "Traceback" not in r.err, r.err
    lost = sorted(
        line.removeprefix("rq:   ").split(": ")[0]
        for line in r.err.splitlines()
        if line.endswith(": parse worker died (exit code -9)")
    )
    # one chunk: at most 16 files (docs/INDEXING.md)
    assert 1 <= len(lost) <= 16 and f"{len(lost)} failed" in r.err, r.err
    conn = connect()
    try:
        indexed = {row[0] for row in conn.execute("SELECT path FROM files")}
        assert indexed == set(FILES) - set(lost)
        assert {row[0] for row in dump(conn)} == indexed
    finally:
        conn.close()
    r = rq("--index", str(repo.root))
    assert r.code == 0 and f"({len(lost)} new or changed" in r.err and "0 failed" in r.err, r.err
    conn = connect()
    try:
        assert dump(conn) == truth(repo.root)
    finally:
        conn.close()
    name = f"K{int(lost[0][1:4])}"
    q = rq("-q", name, cwd=repo.root)
    assert q.code == 0 and q.out.startswith(f"{lost[0]}:1  class  {name}"), q


@needs_workers
def test_every_worker_dying_fails_the_files_not_the_pass(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(FILES)
    r = rq("--index", str(repo.root), env={"RQ_INDEX_KILL_AT": "worker"})
    assert r.code == 0 and "Traceback" not in r.err, r.err
    assert "(0 new or changed, 0 removed, 0 skipped, 120 failed)" in r.err, r.err
    assert "parse worker died (exit code -9)" in r.err
    assert rq("--check").code == 0
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "indexed 120 files (120 new or changed" in r.err, r.err
    q = rq("-q", "K42", cwd=repo.root)
    assert q.code == 0 and q.out.startswith("m042.py:1  class  K42"), q


def test_closing_early_never_hangs_on_a_parent_that_handles_sigterm(
    make_repo: Callable[..., Repo],
) -> None:
    """An embedding program's SIGTERM handler is not the workers': they reset it,
    and their pipes close before they are waited for."""
    # ~3 MB of results a worker, more than its 1 MiB pipe holds: unread, they block
    defs = "".join(
        f"def a_rather_long_function_name_number_{k:04}():\n    pass\n" for k in range(400)
    )
    big = {f"b{i:03}.py": defs for i in range(200)}
    repo = make_repo(big)
    script = f"""
import os, signal, sys, time
sys.path.insert(0, {str(ROOT)!r})
signal.signal(signal.SIGTERM, lambda *a: None)
from rq_engine.index import pool
from rq_engine.index.parse import Job
jobs = [Job(p, "python", None) for p in {sorted(big)!r}]
results = pool.parse_all({str(repo.root)!r}, jobs, 1 << 20, 2, stop_poll=0.05)
next(r for r in results if r is not None)
# wait until every worker is blocked writing to its full result pipe (the kernel's
# wait channel says so), however long parsing takes on this machine
me = os.getpid()
def workers():
    kids = set()
    for tid in os.listdir(f"/proc/{{me}}/task"):
        with open(f"/proc/{{me}}/task/{{tid}}/children") as f:
            kids.update(f.read().split())
    return kids
def blocked(pid):
    try:
        with open(f"/proc/{{pid}}/wchan") as f:
            return "pipe_write" in f.read()
    except FileNotFoundError:
        return False
deadline = time.monotonic() + 120  # bounds a failure only
while not (workers() and all(blocked(pid) for pid in workers())):
    assert time.monotonic() < deadline, "the workers never filled their pipes"
    time.sleep(0.01)
results.close()
print("closed")
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "closed\n", p.stderr
