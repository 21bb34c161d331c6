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
    assert len(calls) > 10  # refilled from the poll loop, a ticket at a time
    assert _no_children()


def test_closing_the_results_early_reaps_every_worker(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(FILES)
    jobs = [Job(p, "python", None) for p in sorted(FILES)]
    results = pool.parse_all(str(repo.root), jobs, 1 << 20, 2, stop_poll=0.05)
    first = next(r for r in results if r is not None)
    assert first.status == "ok"
    results.close()  # a cancelled pass: the workers are stopped and waited for
    assert _no_children()
