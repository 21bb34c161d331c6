"""The canonical prior (issue 12, item 2): among same-named definitions, the one the
codebase names by its qualifier more often wins a tie; the others fall by the gap,
and nothing is lifted — and the counts follow every edit, deletion and reindex
exactly.

Real git repositories, real `rq` processes. `a/reader.go` and `b/reader.go` each
define `type Reader`; the path tiebreak alone puts a/ first, so only the prior
can put b/ there.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from rq_engine.core.scoring import WEIGHTS
from tests.conftest import Repo, Run
from tests.search.served import explained

TYPE = "package {pkg}\n\ntype Reader struct{{}}\n"


def user(n: int, pkg: str) -> str:
    return f'package main\n\nimport "example.com/m/{pkg}"\n\nvar r{n} {pkg}.Reader\n'


def _hits(rq: Callable[..., Run], repo: Repo, query: str = "Reader") -> list[dict[str, object]]:
    r = rq("-q", "--json", "--explain", query, cwd=repo.root)
    assert r.code == 0, r.err
    hits = json.loads(r.out)["results"]
    assert isinstance(hits, list)
    return hits


def _repo(make_repo: Callable[..., Repo], a_users: int, b_users: int) -> Repo:
    files = {"a/reader.go": TYPE.format(pkg="a"), "b/reader.go": TYPE.format(pkg="b")}
    for i in range(a_users):
        files[f"cmd/ua{i}.go"] = user(i, "a")
    for i in range(b_users):
        files[f"cmd/ub{i}.go"] = user(100 + i, "b")
    return make_repo(files)


def test_the_definition_named_more_often_wins_a_tie(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _repo(make_repo, a_users=1, b_users=7)
    assert rq("--index", str(repo.root)).code == 0
    hits = _hits(rq, repo)
    assert [h["path"] for h in hits[:2]] == ["b/reader.go", "a/reader.go"]
    b, a = explained(hits[0]), explained(hits[1])
    # b: named in 7 files (3 doublings), a: in 1 (1 doubling); b keeps its score
    assert "referenced" not in b
    assert a["referenced"] == WEIGHTS["referenced"] * (1 - 3)
    # every other part is the same: the prior alone decided
    assert {k: v for k, v in b.items()} == {k: v for k, v in a.items() if k != "referenced"}


def test_it_lifts_nothing_and_leaves_a_scoped_query_to_its_scope(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _repo(make_repo, a_users=0, b_users=7)
    repo.write("c/readerx.go", "package c\n\ntype ReaderX struct{}\n")
    repo.commit("x")
    assert rq("--index", str(repo.root)).code == 0
    # a prefix of all three: the Readers' copies are ordered, ReaderX is untouched
    prefix = {str(h["path"]): explained(h) for h in _hits(rq, repo, "Reade")}
    assert "referenced" not in prefix["b/reader.go"]
    assert "referenced" not in prefix["c/readerx.go"]
    assert prefix["a/reader.go"]["referenced"] < 0
    # a near miss of the name is ordered the same way as the name
    assert _hits(rq, repo, "Redaer")[0]["path"] == "b/reader.go"
    scoped = _hits(rq, repo, "a.Reader")  # the scope names the package
    assert scoped[0]["path"] == "a/reader.go"
    assert all("referenced" not in explained(h) for h in scoped)


def test_counts_follow_edits_deletions_and_new_files(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """The prior flips as the code that names each Reader changes, and the stored
    counts always equal a recount of what the files name now."""
    repo = _repo(make_repo, a_users=1, b_users=3)
    assert rq("--index", str(repo.root)).code == 0
    assert _hits(rq, repo)[0]["path"] == "b/reader.go"
    # b's users move to a (edits), one b user is deleted, new a users arrive
    for i in range(3):
        repo.write(f"cmd/ub{i}.go", user(100 + i, "a"))
    for i in range(1, 4):
        repo.write(f"cmd/ua{i}.go", user(i, "a"))
    repo.write("cmd/ub9.go", user(109, "b"))
    repo.commit("move")
    (repo.root / "cmd" / "ub9.go").unlink()
    repo.write("cmd/ub8.go", user(108, "b"))
    assert rq("--index", str(repo.root)).code == 0
    hits = _hits(rq, repo)
    assert [h["path"] for h in hits[:2]] == ["a/reader.go", "b/reader.go"]
    assert explained(hits[1])["referenced"] == WEIGHTS["referenced"] * (1 - 3)  # 1 file vs 7
    db = sqlite3.connect(Path(os.environ["RQ_HOME"]) / "index.db")
    stored = dict(
        ((q, n), f)
        for q, n, f in db.execute("SELECT qualifier, name, files FROM ref_counts WHERE files > 0")
    )
    recount: dict[tuple[str, str], int] = {}
    for (text,) in db.execute("SELECT pairs FROM file_refs"):
        for line in text.split("\n"):
            q, n = line.split("\t")
            recount[(q, n)] = recount.get((q, n), 0) + 1
    assert stored == recount
    assert stored[("a", "Reader")] == 7 and stored[("b", "Reader")] == 1
