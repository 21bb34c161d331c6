"""`rq -q --all-repos`: every repository's definitions match as well as they would
searched alone. Real `rq` processes on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.conftest import Repo, Run

CLASS = "class TestResponse:\n    pass\n"


def test_a_name_in_two_repositories_is_a_prefix_match_in_both(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """The layers remembered the names they had fetched across repositories, so the
    second repository's `TestResponse` was never read as a prefix of `TestRespo`: it
    came back through the substring scan, scored as a fuzzy match far below."""
    here = make_repo({"a/response.py": CLASS}, name="here")
    other = make_repo({"b/response.py": CLASS}, name="other")
    for repo in (here, other):
        assert rq("--index", str(repo.root)).code == 0
    run = rq("-q", "--all-repos", "--json", "--explain", "TestRespo", cwd=here.root)
    assert run.code == 0, run.err
    hits = json.loads(run.out)["results"]
    assert [h["path"] for h in hits] == ["a/response.py", "../other/b/response.py"]
    parts = [{p["feature"]: p["value"] for p in h["explain"]} for h in hits]
    assert all("prefix" in p for p in parts), parts
    # the same match but for the repository searched from
    assert hits[0]["score"] - hits[1]["score"] == parts[0]["current_repo"]
