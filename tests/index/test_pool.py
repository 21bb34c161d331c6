"""The fork pool: tickets fed as workers drain them, no worker outlives the pass."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable

import pytest

from rq_engine.index import pool
from rq_engine.index.indexer import index_under
from rq_engine.index.parse import Job
from tests.conftest import Repo
from tests.index.conftest import dump, truth
from tests.index.test_derived import crash_on_boom

FILES = {f"m{i:03}.py": f"class K{i}:\n    def m{i}(self):\n        pass\n" for i in range(120)}


def _no_children() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_tickets_that_do_not_fit_the_pipe_are_fed_while_workers_drain_it(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(FILES)
    real = pool._send_tickets
    calls: list[int] = []

    def one_at_a_time(fd: int, tickets: memoryview) -> memoryview:
        # as if the pipe held a single ticket: the parent must refill it from its loop
        calls.append(len(tickets))
        blocked = real(fd, tickets[:4])
        return tickets if blocked else tickets[4:]

    monkeypatch.setattr(pool, "_send_tickets", one_at_a_time)
    s = index_under(db, repo.root, workers=2)
    assert s.files_indexed == 120 and s.files_failed == 0
    assert dump(db) == truth(repo.root)
    # more than one ticket was due at the start, yet each call sent one: the rest were
    # fed from the poll loop (how many chunks a pass makes depends on its pace)
    assert calls[0] > 4 and len(calls) >= calls[0] // 4
    assert _no_children()


def test_closing_the_results_early_reaps_every_worker(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(FILES)
    jobs = [Job(p, "python", None) for p in sorted(FILES)]
    results = pool.parse_all(str(repo.root), jobs, 1 << 20, 2, stop_poll=0.05)
    first = next(r for r in results if r is not None)
    assert first.status == "ok"
    results.close()  # a cancelled pass: the workers are stopped and waited for
    assert _no_children()


def test_workers_that_all_die_with_tickets_unsent_fail_their_files(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No reader is left for the tickets still to send: the pass reports every file
    failed instead of raising BrokenPipeError (which the CLI takes for a closed stdout)."""
    repo = make_repo({rel: text + "\n\ndef boom():\n    pass\n" for rel, text in FILES.items()})
    real = pool._send_tickets

    def one_at_a_time(fd: int, tickets: memoryview) -> memoryview:
        blocked = real(fd, tickets[:4])
        return tickets if blocked else tickets[4:]

    monkeypatch.setattr(pool, "_send_tickets", one_at_a_time)
    crash_on_boom(monkeypatch, exit_code=9)  # every file defines boom: every worker dies
    s = index_under(db, repo.root, workers=2)
    assert s.files_failed == 120 and s.files_indexed == 0
    assert any("parse worker died (exit code 9)" in e for e in s.errors)
    assert _no_children()


def test_closing_early_never_hangs_on_a_parent_that_handles_sigterm(
    make_repo: Callable[..., Repo],
) -> None:
    """An embedding program's SIGTERM handler is not the workers': they reset it,
    and their pipes close before they are waited for."""
    import subprocess
    import sys

    from tests.conftest import ROOT

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
