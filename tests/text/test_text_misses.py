"""`rq --text`'s "no good answer" is a promise, as `rq -q`'s miss is: never "not indexed yet".

Real `rq` processes on real git repositories, inside the recheck window (a verdict
trusted for an hour: RQ_WARM_RECHECK_MS), where a hit forks no git — which a `git`
wrapper on PATH shows — and an unstaged change moves no git-state stamp. A new
file, a rename or an added definition is found by the next text query; a query
that ranked just before another rq caught the index up asks again; `--no-wait`
says "not yet" (2) instead of "no good answer" (1).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, racing_git
from tests.test_warming import locs, make_spy

# A verdict trusted for an hour: every query below is inside the recheck window.
WINDOW = {"RQ_WARM_RECHECK_MS": "3600000", "RQ_WARM_DETACH": "0"}
FILES = {
    "orders.py": "def parse_order_line():\n    return 1\n",
    "billing.py": "class InvoiceBuilder:\n    pass\n",
}


@pytest.fixture
def settled(make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path) -> Repo:
    """An indexed repository whose verdict is fresh: a text hit forks no git."""
    repo = make_repo(FILES)
    assert rq("--index", str(repo.root), env=WINDOW).code == 0
    spy = make_spy(tmp_path / "hit")
    r = rq("--text", "parse order line", cwd=repo.root, env={**spy.env, **WINDOW})
    assert (r.code, locs(r)) == (0, ["orders.py:1"]), r.err
    assert spy.gits() == [], spy.lines()  # inside the window: the hit asked git nothing
    return repo


def change(repo: Repo, kind: str) -> None:
    """A change that leaves git's stamp (HEAD, .git/index) as it was: nothing staged."""
    if kind == "new file":
        repo.write("refunds.py", "def refund_payment_batch():\n    pass\n")
    elif kind == "rename":
        os.rename(repo.root / "billing.py", repo.root / "invoices.py")
    else:
        repo.write("orders.py", FILES["orders.py"] + "\n\ndef refund_payment_batch():\n    pass\n")


WANT = {
    "new file": ("refund payment batch", "refunds.py:1"),
    "rename": ("invoice builder", "invoices.py:1"),
    "added definition": ("refund payment batch", "orders.py:5"),
}


@pytest.mark.parametrize("kind", list(WANT))
def test_a_change_inside_the_recheck_window_is_found_not_missed(
    settled: Repo, rq: Callable[..., Run], kind: str
) -> None:
    change(settled, kind)
    words, where = WANT[kind]
    r = rq("--text", words, cwd=settled.root, env=WINDOW)
    assert (r.code, locs(r)[:1], r.err) == (0, [where], "")


def test_a_true_miss_asks_git_once_and_stays_exit_1(
    settled: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    spy = make_spy(tmp_path)
    r = rq("--text", "zebra nowhere", "--json", cwd=settled.root, env={**spy.env, **WINDOW})
    assert r.code == 1 and json.loads(r.out)["results"] == []
    assert len([g for g in spy.gits() if " status " in g]) == 1, spy.lines()
    assert r.err == (
        "rq: no good answer for 'zebra nowhere':"
        " no node accounts for 75% of the query (best covers 0%)\n"
    )


def test_no_wait_says_not_yet_when_the_tree_moved(settled: Repo, rq: Callable[..., Run]) -> None:
    change(settled, "new file")
    r = rq("--text", "refund payment batch", "--no-wait", cwd=settled.root, env=WINDOW)
    assert (r.code, r.out) == (2, ""), r.err
    assert r.err == (
        f"rq: no answer for 'refund payment batch' yet: {settled.root} changed since it was"
        " indexed\n"
    )
    r = rq("--text", "refund payment batch", cwd=settled.root, env=WINDOW)
    assert (r.code, locs(r)) == (0, ["refunds.py:1"]), r.err


def test_a_miss_ranked_before_another_rq_caught_up_is_asked_again(
    settled: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    """The race of two queries right after one edit, made to happen every time: a `git`
    wrapper lets a second `rq` catch the index up (reindex the edited file, settle)
    while the text query waits for its own `git status`. Git then says nothing moved,
    yet the text query's miss predates that reindex."""
    path, log = racing_git(tmp_path, "ledger_snapshot")
    settled.write(
        "ledger.py", "def post_ledger_entry():\n    pass\n\n\ndef ledger_snapshot():\n    pass\n"
    )
    env = {**WINDOW, **path}
    r = rq("--text", "post ledger entry", cwd=settled.root, env=env)
    racer = log.read_text()
    assert "ledger.py:5" in racer and "exit 0" in racer, racer  # the other rq caught up first
    assert (r.code, locs(r)[:1]) == (0, ["ledger.py:1"]), (r.out, r.err)
