"""`--anchor FILE:LINE[:COL]` (issue 12, seed D18): `enclosing` and `proximity`.

Real git repositories and real `rq` processes for what a user sees (the ranking,
--explain, the exit code of a bad anchor); the two feature functions' arithmetic
is checked directly.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

import pytest

from rq_engine.core.scoring import (
    WEIGHTS,
    dir_steps,
    enclosing_feature,
    proximity_feature,
    shared_scope,
)
from tests.conftest import Repo, Run
from tests.search.served import explained

# class B comes first: without an anchor, the tiebreak (line) puts B.foo above A.foo
AB = "\n".join(
    [
        "class B:",  # 1
        "    def foo(self):",  # 2
        "        return 2",  # 3
        "",  # 4
        "",  # 5
        "class A:",  # 6
        "    def foo(self):",  # 7
        "        return 1",  # 8
        "",  # 9
        "    def bar(self):",  # 10
        "        x = self.foo()",  # 11
        "        return x",  # 12
        "",
    ]
)


def _query(rq: Callable[..., Run], repo: Repo, query: str, *args: str) -> list[dict[str, object]]:
    r = rq("-q", "--json", "--explain", *args, query, cwd=repo.root)
    assert r.code == 0, r.err
    results = json.loads(r.out)["results"]
    assert isinstance(results, list)
    return results


@pytest.fixture
def ab(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo({"pkg/ab.py": AB}, name="ab")
    assert rq("--index", str(repo.root)).code == 0
    return repo


def test_an_anchor_inside_class_a_ranks_a_foo_over_b_foo(ab: Repo, rq: Callable[..., Run]) -> None:
    plain = _query(rq, ab, "foo")
    assert [h["qualified"] for h in plain[:2]] == ["B.foo", "A.foo"]
    hits = _query(rq, ab, "foo", "--anchor", "pkg/ab.py:11:9")
    assert [h["qualified"] for h in hits[:2]] == ["A.foo", "B.foo"]
    a, b = explained(hits[0]), explained(hits[1])
    # --explain shows each boost with its value: A shares one scope level with A.bar
    assert a["enclosing"] == WEIGHTS["enclosing"]
    assert "enclosing" not in b
    assert a["proximity"] == b["proximity"] == WEIGHTS["proximity_file"]
    assert hits[0]["score"] == round(sum(a.values()), 2)
    # the plain face shows the same parts
    out = rq("-q", "--explain", "--anchor", "pkg/ab.py:11", "foo", cwd=ab.root)
    assert out.code == 0
    first = out.out.split("\n    total")[0]
    assert first.startswith("pkg/ab.py:7  method  A.foo")
    assert "enclosing" in first and "+60.0" in first and "proximity" in first


def test_an_anchor_outside_any_definition_has_proximity_only(
    ab: Repo, rq: Callable[..., Run]
) -> None:
    hits = _query(rq, ab, "foo", "--anchor", "pkg/ab.py:4")
    assert [h["qualified"] for h in hits[:2]] == ["B.foo", "A.foo"]
    assert all("enclosing" not in explained(h) for h in hits)


def test_proximity_halves_per_directory_step(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    helper = "def helper():\n    return 1\n"
    repo = make_repo(
        {
            "x/y/here.py": "def caller():\n    return helper()\n",
            "x/y/near.py": helper,  # same directory: 60
            "x/step.py": helper,  # one step up: 30
            "x/z/w.py": helper,  # up one, down one: 15
            "far/a/b/c.py": helper,  # up two, down three: 60/32, not shown
        },
        name="prox",
    )
    assert rq("--index", str(repo.root)).code == 0
    hits = _query(rq, repo, "helper", "--anchor", "x/y/here.py:2")
    got = {str(h["path"]): explained(h).get("proximity") for h in hits}
    assert got == {"x/y/near.py": 60.0, "x/step.py": 30.0, "x/z/w.py": 15.0, "far/a/b/c.py": None}
    assert [h["path"] for h in hits][:3] == ["x/y/near.py", "x/step.py", "x/z/w.py"]


def test_an_anchor_file_edited_since_it_was_indexed_is_parsed_live(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """The index holds `caller.py` with its line 3 inside class B; the file now has
    class A there. The anchor follows the file as it is."""
    repo = make_repo(
        {
            "pkg/ab.py": AB,
            "pkg/caller.py": "class B:\n    def bar(self):\n        return self.foo()\n",
        },
        name="live",
    )
    assert rq("--index", str(repo.root)).code == 0
    stored = _query(rq, repo, "foo", "--anchor", "pkg/caller.py:3")
    assert stored[0]["qualified"] == "B.foo" and "enclosing" in explained(stored[0])
    p = repo.root / "pkg/caller.py"
    p.write_text("class A:\n    def bar(self):\n        return self.foo()\n")
    later = time.time() + 5  # a new mtime whatever the clock's granularity
    os.utime(p, (later, later))
    hits = _query(rq, repo, "foo", "--anchor", "pkg/caller.py:3")
    assert hits[0]["qualified"] == "A.foo"
    assert explained(hits[0])["enclosing"] == WEIGHTS["enclosing"]
    assert "enclosing" not in explained(hits[1])


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("pkg/missing.py:3", "no such file"),
        ("pkg:3", "not a file"),
        ("pkg/ab.py", "expected FILE:LINE"),
        ("pkg/ab.py:x", "expected FILE:LINE"),
        ("pkg/ab.py:3:", "expected FILE:LINE"),
        ("pkg/ab.py:0", "count from 1"),
        ("pkg/ab.py:3:0", "count from 1"),
    ],
)
def test_a_bad_anchor_is_one_line_and_exit_64(
    ab: Repo, rq: Callable[..., Run], spec: str, says: str
) -> None:
    r = rq("-q", "--anchor", spec, "foo", cwd=ab.root)
    assert r.code == 64
    assert r.out == ""
    assert r.err.count("\n") == 1 and r.err.startswith("rq: --anchor") and says in r.err


def test_an_anchor_goes_with_a_query_only(ab: Repo, rq: Callable[..., Run]) -> None:
    r = rq("--status", "--anchor", "pkg/ab.py:3", cwd=ab.root)
    assert r.code == 64 and "--anchor goes with a query" in r.err


def test_the_features_arithmetic() -> None:
    assert enclosing_feature(0) == []
    assert enclosing_feature(1) == [("enclosing", 60.0)]
    assert enclosing_feature(2) == [("enclosing", 120.0)]
    assert (
        enclosing_feature(5) == [("enclosing", WEIGHTS["enclosing_cap"])] == [("enclosing", 180.0)]
    )
    assert proximity_feature(True, 0) == [("proximity", 90.0)]
    assert [proximity_feature(False, s) for s in range(5)] == [
        [("proximity", 60.0)],
        [("proximity", 30.0)],
        [("proximity", 15.0)],
        [("proximity", 7.5)],
        [],  # 3.75: below 5
    ]
    assert proximity_feature(False, None) == []
    # the parent must be a leading run of the anchor's chain
    chain = ("Outer", "A", "bar")
    assert shared_scope("Outer.A", chain) == 2
    assert shared_scope("Outer", chain) == 1
    assert shared_scope("A", chain) == 0  # not a leading run
    assert shared_scope("Outer.A.bar.inner", chain) == 0  # deeper than the anchor
    assert shared_scope(None, chain) == 0
    assert dir_steps(("x", "y"), ("x", "y")) == 0
    assert dir_steps(("x", "y"), ("x",)) == 1
    assert dir_steps(("x", "y"), ("x", "z")) == 2
    assert dir_steps((), ("a", "b")) == 2
