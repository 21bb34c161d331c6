"""`rq -q --all-repos`: a miss is definitive (exit 1) only when every repository is complete
and the current one is caught up, as a query in it alone would be.

Real `rq` processes on real git repositories; warming in-process (RQ_WARM_DETACH=0).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run


def _two(make_repo: Callable[..., Repo]) -> tuple[Repo, Repo]:
    here = make_repo({"app/models.py": "class Order:\n    pass\n"}, name="here")
    other = make_repo(
        {
            "sub/seed.py": "def seeded():\n    pass\n",
            "rest/later.py": "def indexed_later():\n    pass\n",
        },
        name="other",
    )
    return here, other


def test_a_miss_while_another_repository_warms_is_not_definitive(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    here, other = _two(make_repo)
    assert rq("--index", str(here.root)).code == 0
    assert rq("--index", str(other.root), "--path", "sub").code == 0  # coverage stays warming
    r = rq("-q", "--all-repos", "--no-wait", "Zebra", cwd=here.root)
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("rq: ") and "not indexed completely" in r.err
    json_miss = rq("-q", "--all-repos", "--json", "--no-wait", "Zebra", cwd=here.root)
    assert json_miss.code == 2 and '"coverage": "warming"' in json_miss.out
    assert rq("--index", str(other.root)).code == 0  # now every repository is complete
    assert rq("-q", "--all-repos", "Zebra", cwd=here.root).code == 1
    hit = rq("-q", "--all-repos", "indexed_later", cwd=here.root)
    assert hit.code == 0 and "indexed_later" in hit.out


def test_a_miss_asks_what_moved_in_the_current_repository_first(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    here, other = _two(make_repo)
    assert rq("--index", str(here.root)).code == 0
    assert rq("--index", str(other.root)).code == 0
    assert rq("-q", "--all-repos", "Zebra", cwd=here.root).code == 1  # settles a fresh verdict
    # A new file (untracked: git's state stamp does not move) right after that verdict
    # holds the answer: a miss must not trust the verdict's window.
    (here.root / "app" / "zebra.py").write_text("class Zebra:\n    pass\n")
    without_waiting = rq("-q", "--all-repos", "--no-wait", "Zebra", cwd=here.root)
    assert without_waiting.code == 2 and "changed since it was indexed" in without_waiting.err
    (here.root / "app" / "yak.py").write_text("class Yak:\n    pass\n")
    r = rq("-q", "--all-repos", "Yak", cwd=here.root)
    assert r.code == 0 and r.out.startswith("app/yak.py:1  class  Yak")


def test_an_index_holding_no_repository_answers_no_match_yet(
    tmp_path: Path, rq: Callable[..., Run]
) -> None:
    """Outside any repository, with nothing indexed, `--all-repos` looked at nothing: it
    says so (exit 2), never a definitive miss — for symbols and text alike."""
    plain = tmp_path / "plain"
    plain.mkdir()
    r = rq("-q", "--all-repos", "Zebra", cwd=plain)
    assert (r.code, r.out) == (2, "")
    assert (
        r.err
        == "rq: no match for 'Zebra' yet: the index holds no repository yet (rq --index DIR)\n"
    )
    j = rq("-q", "--all-repos", "--json", "Zebra", cwd=plain)
    assert j.code == 2 and '"coverage": "warming"' in j.out
    first = rq(
        "--text", "zebra stripes", "--all-repos", cwd=plain, env={"RQ_HOME": str(tmp_path / "none")}
    )
    assert (first.code, first.err) == (
        2,
        "rq: the index holds no repository yet (rq --index DIR)\n",
    )
    t = rq("--text", "zebra stripes", "--all-repos", cwd=plain)
    assert (t.code, t.out) == (2, "")
    assert t.err == "rq: the index holds no repository yet (rq --index DIR)\n"
