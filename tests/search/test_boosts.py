"""Context boosts (issue 12): recency and the current repository under `--all-repos`.

Real git repositories, real `rq -q --json --explain` processes. Each scenario is a
tie: two definitions the static features cannot tell apart, laid out so that the
stable tiebreak (path) alone would pick the *other* one — only the boost can
decide it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

from rq_engine.core.scoring import WEIGHTS
from tests.conftest import Repo, Run
from tests.search.served import explained

YEAR_AGO = int(time.time()) - 365 * 86400
CLASS = "class Widget:\n    def run(self):\n        return 1\n"


def commit_at(repo: Repo, when: int, msg: str) -> None:
    date = f"@{when} +0000"
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        repo.commit(msg)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def age(repo: Repo, *rels: str) -> None:
    for rel in rels:
        os.utime(repo.root / rel, (YEAR_AGO, YEAR_AGO))


def _query(rq: Callable[..., Run], repo: Repo, *args: str) -> list[dict[str, object]]:
    r = rq("-q", "--json", "--explain", *args, "Widget", cwd=repo.root)
    assert r.code == 0, r.err
    results = json.loads(r.out)["results"]
    assert isinstance(results, list)
    return results


def _old_and_new(make_repo: Callable[..., Repo]) -> Repo:
    """`a/widget.py` and `b/widget.py` define the same class, committed a year ago
    with year-old mtimes: the path tiebreak alone puts a/ first."""
    repo = make_repo(name="r", commit=False)
    repo.write("a/widget.py", CLASS)
    repo.write("b/widget.py", CLASS)
    commit_at(repo, YEAR_AGO, "old")
    age(repo, "a/widget.py", "b/widget.py")
    return repo


def test_a_file_committed_today_beats_one_untouched_for_a_year(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _old_and_new(make_repo)
    # b/ changes today (a comment above the class: same span length); its mtime is
    # then aged again, so only the commit time can speak for it
    repo.write("b/widget.py", "# touched\n" + CLASS)
    commit_at(repo, int(time.time()), "today")
    age(repo, "b/widget.py")
    assert rq("--index", str(repo.root)).code == 0
    hits = _query(rq, repo)
    assert [h["path"] for h in hits[:2]] == ["b/widget.py", "a/widget.py"]
    new, old = explained(hits[0]), explained(hits[1])
    # --explain names the boost with its value: all of it for a file touched today
    assert 0.9 * WEIGHTS["recency"] <= new["recency"] <= WEIGHTS["recency"]
    assert "recency" not in old  # a year is 26 half-lives: nothing left to show
    assert hits[0]["score"] == round(sum(new.values()), 2)  # the total is the parts' sum
    # the boost is the only difference: everything else ties
    assert {k: v for k, v in new.items() if k != "recency"} == old


def test_a_file_modified_today_beats_one_untouched_for_a_year(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _old_and_new(make_repo)
    os.utime(repo.root / "b/widget.py")  # touched today, uncommitted: the mtime speaks
    assert rq("--index", str(repo.root)).code == 0
    hits = _query(rq, repo)
    assert [h["path"] for h in hits[:2]] == ["b/widget.py", "a/widget.py"]
    assert explained(hits[0])["recency"] > 0.9 * WEIGHTS["recency"]
    assert "recency" not in explained(hits[1])


def test_recency_breaks_ties_only(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    """A fresh file with a worse match stays below an old file with a better one: the
    old exact `Widget` beats today's `widget` (the query's case is a 60-point feature)."""
    repo = make_repo(name="r", commit=False)
    repo.write("a/lower.py", "def widget():\n    return 1\n")
    repo.write("b/widget.py", CLASS)
    commit_at(repo, YEAR_AGO, "old")
    age(repo, "b/widget.py")  # a/ keeps today's mtime
    assert rq("--index", str(repo.root)).code == 0
    hits = _query(rq, repo)
    assert [h["path"] for h in hits[:2]] == ["b/widget.py", "a/lower.py"]
    assert "recency" in explained(hits[1])


def test_the_current_repository_wins_a_tie_across_repositories(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    here = make_repo(name="here", commit=False)
    other = make_repo(name="other", commit=False)
    here.write("w/widget.py", CLASS)  # the path tiebreak alone would pick other's a/
    other.write("a/widget.py", CLASS)
    for repo, rel in ((here, "w/widget.py"), (other, "a/widget.py")):
        commit_at(repo, YEAR_AGO, "old")
        age(repo, rel)
        assert rq("--index", str(repo.root)).code == 0
    hits = _query(rq, here, "--all-repos")
    assert len(hits) == 2
    assert str(hits[0]["repository"]).endswith("here") and hits[0]["path"] == "w/widget.py"
    assert explained(hits[0])["current_repo"] == WEIGHTS["current_repo"]
    assert "current_repo" not in explained(hits[1])
    # from the other repository the order turns round
    back = _query(rq, other, "--all-repos")
    assert str(back[0]["repository"]).endswith("other")
    # scoped to one repository (the default) there is nothing to prefer: no feature
    alone = _query(rq, here)
    assert len(alone) == 1 and "current_repo" not in explained(alone[0])
