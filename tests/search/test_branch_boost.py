"""The branch boost (issue 12): on a feature branch, the files it changed against the trunk.

Real git repositories, real `rq -q --json --explain` processes, a real `git` behind a
PATH wrapper where the test must count or slow it. Each ranking scenario is a tie
the path tiebreak alone would give to `a/`; only the branch can give it to `b/`.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from rq_engine.core.scoring import WEIGHTS
from rq_engine.search.branch import parse_answer
from tests.conftest import Repo, Run
from tests.search.served import explained
from tests.search.test_boosts import YEAR_AGO, age, commit_at

CLASS = "class Widget:\n    def run(self):\n        return 1\n"
# A loaded test machine may take longer than the default 10 ms for git's first answer;
# the ranking scenarios are about the boost, not the budget (the last tests are).
WAIT = {"RQ_BRANCH_BUDGET_MS": "10000"}


def _query(
    rq: Callable[..., Run], repo: Repo, env: dict[str, str] | None = None
) -> tuple[list[dict[str, object]], Run]:
    r = rq("-q", "--json", "--explain", "Widget", cwd=repo.root, env=env)
    assert r.code == 0, r.err
    results = json.loads(r.out)["results"]
    assert isinstance(results, list)
    return results, r


def _trunk(make_repo: Callable[..., Repo]) -> Repo:
    """main: `a/widget.py` and `b/widget.py` define the same class, a year old."""
    repo = make_repo(name="r", commit=False)
    repo.write("a/widget.py", CLASS)
    repo.write("b/widget.py", CLASS)
    repo.write("b/notes.py", "NOTE = 1\n")
    commit_at(repo, YEAR_AGO, "old")
    age(repo, "a/widget.py", "b/widget.py", "b/notes.py")
    return repo


def _git_wrapper(tmp_path: Path, body: str) -> dict[str, str]:
    """A `git` first on PATH that logs its arguments, runs `body`, then the real git."""
    real = next(
        p
        for d in os.environ["PATH"].split(os.pathsep)
        if os.access(p := os.path.join(d, "git"), os.X_OK)
    )
    bin_dir = tmp_path / "wrapped-bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    script = bin_dir / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n{body}\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "RQ_GIT_LOG": str(log)}


def _log(env: dict[str, str]) -> list[str]:
    p = Path(env["RQ_GIT_LOG"])
    return p.read_text().splitlines() if p.exists() else []


def test_a_file_the_branch_committed_wins_a_tie(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    # the branch changes b/ (a comment above the class: the same span), committed a
    # year ago and aged, so neither recency nor anything but the branch tells them apart
    repo.write("b/widget.py", "# reworked\n" + CLASS)
    commit_at(repo, YEAR_AGO, "work")
    age(repo, "b/widget.py")
    assert rq("--index", str(repo.root)).code == 0
    hits, _ = _query(rq, repo, WAIT)
    assert [h["path"] for h in hits[:2]] == ["b/widget.py", "a/widget.py"]
    mine, other = explained(hits[0]), explained(hits[1])
    assert mine["branch"] == WEIGHTS["branch"]  # --explain names it with its value
    assert "branch" not in other and "branch_dir" not in other
    assert {k: v for k, v in mine.items() if k != "branch"} == other
    assert hits[0]["score"] == round(sum(mine.values()), 2)


def test_uncommitted_files_count_and_their_directory_gets_the_smaller_boost(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """An edit not committed (b/notes.py) is branch work too; b/widget.py beside it
    takes `branch_dir`, which wins the tie over a/widget.py."""
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    assert rq("--index", str(repo.root)).code == 0
    # unstaged (a new size: git tells it from the stat), and no symbol of it is asked for
    repo.write("b/notes.py", "NOTE = 22\n")
    age(repo, "b/notes.py")
    hits, _ = _query(rq, repo, WAIT)
    assert [h["path"] for h in hits[:2]] == ["b/widget.py", "a/widget.py"]
    assert explained(hits[0])["branch_dir"] == WEIGHTS["branch_dir"]
    assert "branch_dir" not in explained(hits[1])
    assert WEIGHTS["branch_dir"] < WEIGHTS["branch"]


def test_the_boost_never_beats_a_better_match(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """The branch's `widget` (the query's case not matched: case is 60) stays below
    the trunk's `Widget`."""
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("c/lower.py", "def widget():\n    return 1\n")
    commit_at(repo, YEAR_AGO, "work")
    age(repo, "c/lower.py")
    assert rq("--index", str(repo.root)).code == 0
    hits, _ = _query(rq, repo, WAIT)
    assert hits[-1]["path"] == "c/lower.py"
    assert explained(hits[-1])["branch"] == WEIGHTS["branch"]


def test_the_trunk_forks_no_git(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    repo = _trunk(make_repo)
    repo.write("b/widget.py", "# dirty on main\n" + CLASS)  # the trunk ignores its edits too
    age(repo, "b/widget.py")  # (so recency cannot tell the two apart either)
    assert rq("--index", str(repo.root)).code == 0
    env = _git_wrapper(tmp_path, "")
    hits, _ = _query(rq, repo, env)
    assert [h["path"] for h in hits] == ["a/widget.py", "b/widget.py"]
    assert not any(p.startswith(("branch", "branch_")) for h in hits for p in explained(h))
    assert not [line for line in _log(env) if " diff " in f" {line} "], _log(env)
    # the wrapper does see git when the branch must be asked: the count above means something
    repo.git("checkout", "-q", "-b", "feature")
    _query(rq, repo, {**env, **WAIT})
    assert any(" diff " in f" {line} " for line in _log(env)), _log(env)


def test_a_cached_answer_forks_nothing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("b/widget.py", "# reworked\n" + CLASS)
    commit_at(repo, YEAR_AGO, "work")
    assert rq("--index", str(repo.root)).code == 0
    env = {**_git_wrapper(tmp_path, ""), **WAIT}
    first, _ = _query(rq, repo, env)
    asked = len(_log(env))
    again, _ = _query(rq, repo, env)
    assert len(_log(env)) == asked  # the second search read the cache
    assert explained(first[0])["branch"] == explained(again[0])["branch"] == WEIGHTS["branch"]


def test_a_slow_git_does_not_delay_the_answer(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """git answering in 5 s: the search answers within its budget without the boost,
    says so in --explain, and the answer lands for a later search."""
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("b/widget.py", "# reworked\n" + CLASS)
    commit_at(repo, YEAR_AGO, "work")
    age(repo, "b/widget.py")
    assert rq("--index", str(repo.root)).code == 0
    env = _git_wrapper(tmp_path, 'case "$*" in *diff*) sleep 5;; esac')
    t0 = time.monotonic()
    hits, r = _query(rq, repo, env)
    took = time.monotonic() - t0
    assert took < 2.5, f"the answer waited for git: {took:.1f} s"
    assert [h["path"] for h in hits[:2]] == ["a/widget.py", "b/widget.py"]  # no boost
    for h in hits:
        assert explained(h)["branch_skipped"] == 0.0
    assert "branch boost skipped: git did not answer within 10 ms" in r.err
    plain = rq("-q", "--explain", "Widget", cwd=repo.root, env=env)
    assert plain.code == 0 and "branch_skipped" in plain.out
    assert "branch boost skipped" in plain.err  # (a refresh is still running: "still computing")
    # the refresh left running lands: a later search has the boost, forking nothing
    deadline = time.monotonic() + 30
    while True:
        hits, _ = _query(rq, repo, env)
        if "branch" in explained(hits[0]) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert hits[0]["path"] == "b/widget.py" and explained(hits[0])["branch"] == WEIGHTS["branch"]


def test_the_cached_answer_reads_committed_and_uncommitted_paths() -> None:
    data = b"".join(
        [
            b"stamp\0",
            b"src/a.py\0src/gone.py\0",
            b"\x01\0",
            b" M src/b.py\0",  # unstaged
            b"A  new/c.py\0",  # staged
            b"?? tmp/d.py\0",  # untracked
            b" D src/e.py\0",  # deleted: nothing to boost
            b"R  src/to.py\0src/from.py\0",  # renamed: the new name
        ]
    )
    stamp, files = parse_answer(data)
    assert stamp == "stamp"
    assert files == {"src/a.py", "src/gone.py", "src/b.py", "new/c.py", "tmp/d.py", "src/to.py"}
    assert parse_answer(b"stamp\0\x02\0") == ("stamp", None)  # git failed
