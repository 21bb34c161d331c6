"""A crowded name's definition where a boost applies is read even past the read's cap.

The exact layer reads 2,000 rows of a name, the first in index order; Linux names
`flags` 5,793 times. The one field a developer means is often the one beside the
anchor, in the file the feature branch changed, or in the file being edited — and
as likely the 5,000th row as the first. Real git repositories, real `rq --index`
and `rq -q --json --explain` processes.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from rq_engine.core.scoring import WEIGHTS
from rq_engine.search.rank import EXACT_ROWS
from tests.conftest import Repo, Run
from tests.search.served import explained
from tests.search.test_boosts import YEAR_AGO, age, commit_at

# more `list` fields than one read takes, in a header indexed (and so read) first
CROWD = "".join(f"struct s{i} {{\n  int list;\n}};\n" for i in range(EXACT_ROWS + 100))
MINE = "struct mine {\n  int list;\n};\n\nint use(struct mine *m) {\n  return m->list;\n}\n"
WAIT = {"RQ_BRANCH_BUDGET_MS": "10000"}  # the scenarios are about the read, not git's budget


def _trunk(make_repo: Callable[..., Repo]) -> Repo:
    """Both files committed a year ago and aged: recency tells no field apart."""
    repo = make_repo(name="crowd", commit=False)
    repo.write("aaa/gen.h", CROWD)
    repo.write("zzz/mine.c", MINE)
    commit_at(repo, YEAR_AGO, "old")
    age(repo, "aaa/gen.h", "zzz/mine.c")
    return repo


def _hits(
    rq: Callable[..., Run], repo: Repo, *args: str, env: dict[str, str] | None = None
) -> list[dict[str, object]]:
    r = rq("-q", "--json", "--explain", "--limit", "5", *args, "list", cwd=repo.root, env=env)
    assert r.code == 0, r.err
    hits = json.loads(r.out)["results"]
    assert isinstance(hits, list)
    return hits


def test_the_field_beside_the_anchor_is_read_past_the_cap(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _trunk(make_repo)
    assert rq("--index", str(repo.root)).code == 0
    plain = _hits(rq, repo)
    assert all(str(h["path"]) == "aaa/gen.h" for h in plain)  # the first rows read
    hits = _hits(rq, repo, "--anchor", "zzz/mine.c:6")
    assert (hits[0]["path"], hits[0]["line"]) == ("zzz/mine.c", 2)
    assert explained(hits[0])["proximity"] == WEIGHTS["proximity_file"]


def test_the_field_in_a_file_the_branch_changed_is_read_past_the_cap(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _trunk(make_repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("zzz/mine.c", "/* reworked */\n" + MINE)
    commit_at(repo, YEAR_AGO, "work")
    age(repo, "zzz/mine.c")
    assert rq("--index", str(repo.root)).code == 0
    hits = _hits(rq, repo, env=WAIT)
    assert (hits[0]["path"], hits[0]["line"]) == ("zzz/mine.c", 3)
    assert explained(hits[0])["branch"] == WEIGHTS["branch"]


def test_the_field_in_the_file_being_edited_is_read_past_the_cap(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = _trunk(make_repo)
    repo.write("zzz/mine.c", MINE + "/* editing */\n")  # on the trunk: no branch boost
    assert rq("--index", str(repo.root)).code == 0  # takes the edit in, held as one
    hits = _hits(rq, repo)
    assert (hits[0]["path"], hits[0]["line"]) == ("zzz/mine.c", 2)
    assert explained(hits[0])["recency"] > 0  # touched now; the header a year ago
    assert "recency" not in explained(hits[1])


@pytest.mark.parametrize("where", ["zzz/", ""])
def test_files_being_edited_do_not_crowd_out_the_files_beside_the_anchor(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], where: str
) -> None:
    # the anchor in x.c; the `list` it means is in beside.c (proximity 60), not in
    # the anchor's own file; then more untracked files than the boosted read takes,
    # none of them defining `list`, are being written (held: recency only). At the
    # repository's top too, where the files beside the anchor sit among directories.
    repo = _trunk(make_repo)
    repo.write(f"{where}x.c", "int here(void) {\n  return 1;\n}\n")
    repo.write(f"{where}beside.c", "struct beside {\n  int list;\n};\n")
    commit_at(repo, YEAR_AGO, "more")
    age(repo, f"{where}x.c", f"{where}beside.c")
    for i in range(120):
        repo.write(f"aab/u{i:03}.c", f"int u{i}(void) {{ return {i}; }}\n")
    assert rq("--index", str(repo.root)).code == 0
    hits = _hits(rq, repo, "--anchor", f"{where}x.c:2")
    assert (hits[0]["path"], hits[0]["line"]) == (f"{where}beside.c", 2)
    assert explained(hits[0])["proximity"] == WEIGHTS["proximity_dir"]
