"""Freshness when more than the results moved, or another rq moved the index first.

Real `rq` processes on real repositories, inside the recheck window (a hit there
forks no git): a definition cut from one file and pasted into another is found
by the next query, and a query that searched just before another process
reindexed what it missed never reports that miss as definitive.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run, racing_git
from tests.test_warming import locs, make_spy

QUIET = {"RQ_WARM_DETACH": "0"}


def test_a_definition_moved_to_another_file_is_found_by_the_next_query(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(
        {
            "a.py": "def helper():\n    return 1\n\ndef other_a():\n    pass\n",
            "b.py": "def other_b():\n    pass\n",
            "c.py": "class Thing:\n    def helper(self):\n        return 2\n",
        }
    )
    assert rq("--index", str(repo.root), env=QUIET).code == 0
    assert locs(rq("-q", "helper", cwd=repo.root, env=QUIET)) == ["a.py:1", "c.py:2"]
    # the refactor: cut from a.py, pasted into b.py, nothing staged (the stamp stays)
    repo.write("a.py", "def other_a():\n    pass\n")
    repo.write("b.py", "def other_b():\n    pass\n\ndef helper():\n    return 1\n")
    r = rq("-q", "helper", cwd=repo.root, env=QUIET)
    assert (r.code, locs(r)) == (0, ["b.py:4", "c.py:2"]), r.err


def test_a_miss_searched_before_another_process_reindexed_is_searched_again(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """The race two queries right after one edit can run into, made to happen every
    time: a `git` wrapper on PATH lets a second `rq` catch the index up (reindex the
    edited file, settle) while the first waits for its own `git status`. When the
    first then asks what moved, nothing has: its earlier miss is out of date."""
    repo = make_repo({"a.py": "def f0():\n    return 1\n"})
    assert rq("--index", str(repo.root), env=QUIET).code == 0
    assert rq("-q", "f0", cwd=repo.root, env=QUIET).code == 0
    path, log = racing_git(tmp_path, "h1")
    env = {**QUIET, **path}
    repo.write("a.py", "def g1():\n    return 1\n\ndef h1():\n    return 2\n")
    r = rq("-q", "g1", cwd=repo.root, env=env)
    racer = log.read_text()
    assert "a.py:4" in racer and "exit 0" in racer, racer  # the other query caught up first
    assert (r.code, locs(r)) == (0, ["a.py:1"]), (r.out, r.err)


def test_a_file_a_new_gitignore_covers_leaves_the_index_without_reindexing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """Ignoring an untracked file changes nothing git reports about it (it just stops
    being listed): the `.gitignore` that appeared is what makes the check walk."""
    repo = make_repo({"a.py": "def alpha():\n    return 1\n"})
    repo.write("gen.py", "def generated_fn():\n    return 1\n")  # untracked, indexed
    assert rq("--index", str(repo.root), env=QUIET).code == 0
    assert locs(rq("-q", "generated_fn", cwd=repo.root, env=QUIET)) == ["gen.py:1"]
    repo.write(".gitignore", "gen.py\n")
    assert rq("-q", "ZebraNowhere", cwd=repo.root, env=QUIET).code == 1  # a miss asks git
    r = rq("-q", "generated_fn", cwd=repo.root, env=QUIET)
    assert (r.code, r.out) == (1, ""), r.err
    # an unchanged, still uncommitted .gitignore costs the next miss no walk (a walk
    # lists what git tracks: `git ls-files`)
    spy = make_spy(tmp_path)
    spied = {**spy.env, **QUIET}
    assert rq("-q", "ZebraNowhere", cwd=repo.root, env=spied).code == 1
    assert any(" status " in g for g in spy.gits()), spy.lines()
    assert not [g for g in spy.gits() if " ls-files " in g], spy.lines()
    assert locs(rq("-q", "alpha", cwd=repo.root, env=QUIET)) == ["a.py:1"]
