"""A page is the head of a longer page: when a crowded name's exact definitions fill
the page, the prefix names that could not place in it are left unread
(core.scoring.ceiling), and what is shown must not change for it — not even where
a prefix match outranks every exact one (the anchor's own class, spelled with the
query's case).

A real git repository indexed by the real `rq --index`, asked by real `rq -q`
processes with `--json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Run

# Twelve exact `frame`s, each as far down as the path and nesting features put a
# definition: generated, internal, private, deep, nested (2000 - 172 + recency).
EXACT = "".join(
    [
        "class A:\n",
        "    class B:\n",
        "        class C:\n",
        "            class D:\n",
        "                class E:\n",
        "                    frame = 0\n",
    ]
)
# The anchor's own class, three scope levels shared with the anchor: a prefix of
# `Frame` (1,483 of its match) that the boosts and the case lift over every
# exact `frame` (1,860 against 1,833), and only with all of them.
ANCHORED = "".join(
    [
        "class Outer:\n",
        "    class Mid:\n",
        "        class Inner:\n",
        "            class Frames:\n",
        "                def here(self):\n",
        "                    return 1\n",  # line 6: the anchor
    ]
)
CORPUS = {
    "app/frames.py": ANCHORED,
    "lib/rates.py": "def frame_rate():\n    return 1\n\n\ndef frame_count():\n    return 2\n",
    **{f"dist/_x/internal/a/b/d{i}.py": EXACT for i in range(12)},
}


@pytest.fixture
def crowded(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(CORPUS, name="crowded")
    assert rq("--index", str(repo.root)).code == 0
    return repo


def _page(rq: Callable[..., Run], repo: Repo, limit: int, *args: str) -> list[str]:
    r = rq("-q", "--json", "--limit", str(limit), *args, cwd=repo.root)
    assert r.code == 0, r.err
    return [f"{h['path']}:{h['line']}" for h in json.loads(r.out)["results"]]


@pytest.mark.parametrize("limit", [1, 3, 10, 12])
def test_a_prefix_match_the_boosts_lift_over_every_exact_one_stays_first(
    crowded: Repo, rq: Callable[..., Run], limit: int
) -> None:
    ask = ("Frame", "--anchor", "app/frames.py:6")
    longer = _page(rq, crowded, 40, *ask)
    assert longer[0] == "app/frames.py:4"  # the class Frames, over the twelve exact
    assert _page(rq, crowded, limit, *ask) == longer[:limit]


@pytest.mark.parametrize("query", ["frame", "Frame"])
def test_without_the_anchor_the_exact_names_fill_the_page(
    crowded: Repo, rq: Callable[..., Run], query: str
) -> None:
    longer = _page(rq, crowded, 40, query)
    assert len(longer) == 15  # twelve exact, then the three prefix matches
    assert all(p.startswith("dist/") for p in longer[:12])
    for limit in (1, 10, 12, 13):
        assert _page(rq, crowded, limit, query) == longer[:limit]


# The row cap of a prefix read keeps the first 1,000 rows of all its names: a read
# that left out the names the floor rules out would let in rows the cap cuts, and
# which depends on the page's size (the floor does). Ten methods `framework` fill
# a page of 10 (1,903 each) but not one of 50; a thousand methods `framework1` fill
# the cap before `framework_`, an exact match with a joiner, is reached.
CAPPED = {
    "app/x/y/z/main.py": "def here():\n    return 1\n",  # the anchor: near nothing
    "dist/one.py": "".join(
        f"class One{i}:\n    def framework(self):\n        return 1\n\n\n" for i in range(10)
    ),
    **{f"dist/_x/internal/a/b/d{i}.py": EXACT.replace("frame", "framework") for i in range(60)},
    "gen/w.py": "".join(
        f"class K{i}:\n    def framework1(self):\n        return {i}\n\n\n" for i in range(1000)
    ),
    "lib/r.py": "def framework_():\n    return 1\n",
}


def test_the_page_does_not_depend_on_its_size_where_the_row_cap_cuts(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(CAPPED, name="capped")
    assert rq("--index", str(repo.root)).code == 0
    ask = ("framework", "--anchor", "app/x/y/z/main.py:1")
    longer = _page(rq, repo, 50, *ask)
    assert longer[0].startswith("dist/one.py:")
    for limit in (1, 10, 11, 20):
        assert _page(rq, repo, limit, *ask) == longer[:limit]


# Every boost at once, and a prefix match that needs each of them: a class whose long
# name makes its match small (1,405), in the anchor's file, three scope levels up from
# it, on the feature branch, spelled with the query's case, in a directory named like
# it and a file named like its parent. Only all of its parts together lift it over
# the twelve exact `frame`s (1,835 against 1,833), and its match is 29 points above
# the floor the page's last exact row sets with every part in the ceiling: leaving
# out any part but recency (the kind weight, the path, the case, the branch, the
# anchor's two) would prune the name it lives in.
LONG = "Frames" + "x" * 94
ANCHORED_LONG = "".join(
    [
        "class Outer:\n",
        "    class Mid:\n",
        "        class Inner:\n",
        f"            class {LONG}:\n",
        "                def here(self):\n",
        "                    return 1\n",
    ]
)
HOME = f"app/{LONG.lower()}/inner.py"


def test_a_prefix_match_only_every_boost_together_places_is_read(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    files = {f"dist/_x/internal/a/b/d{i}.py": EXACT for i in range(12)}
    repo = make_repo({**files, HOME: ANCHORED_LONG}, name="every")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(HOME, "# reworked\n" + ANCHORED_LONG)
    repo.commit("work")
    assert rq("--index", str(repo.root)).code == 0
    ask = ("Frame", "--anchor", f"{HOME}:7")
    env = {"RQ_BRANCH_BUDGET_MS": "10000"}  # (about the bound, not git's budget)
    r = rq("-q", "--json", "--explain", "--limit", "40", *ask, cwd=repo.root, env=env)
    assert r.code == 0, r.err
    first = json.loads(r.out)["results"][0]
    assert first["name"] == LONG, first
    assert {p["feature"] for p in first["explain"]} >= {
        "case",
        "kind",
        "path_name",
        "path_parent",
        "branch",
        "enclosing",
        "proximity",
    }
    longer = [f"{h['path']}:{h['line']}" for h in json.loads(r.out)["results"]]
    for limit in (1, 6, 12):
        got = rq("-q", "--json", "--limit", str(limit), *ask, cwd=repo.root, env=env)
        assert got.code == 0, got.err
        assert [f"{h['path']}:{h['line']}" for h in json.loads(got.out)["results"]] == (
            longer[:limit]
        )
