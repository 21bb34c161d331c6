"""Repository identity: remotes normalise to host/org/repo; otherwise local:/abs/path."""

from __future__ import annotations

from pathlib import Path

import pytest

from rq_engine.core.identity import checkout_for, normalize_remote


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:Org/Repo.git",
        "ssh://git@github.com/Org/Repo.git",
        "ssh://git@github.com:22/Org/Repo",
        "https://github.com/Org/Repo.git",
        "https://user@GitHub.com/Org/Repo/",
        "git://github.com/Org/Repo",
    ],
)
def test_remote_forms_agree(url: str) -> None:
    assert normalize_remote(url) == "github.com/Org/Repo"


def test_local_path_remote_is_not_an_identity() -> None:
    assert normalize_remote("/srv/git/repo.git") is None
    assert normalize_remote("file:///srv/git/repo.git") is None


def test_checkout_with_remote(make_repo) -> None:
    repo = make_repo({"a.py": "x = 1\n"}, remote="git@example.org:team/proj.git")
    sub = repo.root / "pkg"
    sub.mkdir()
    co = checkout_for(sub)
    assert co.root == repo.root.resolve()
    assert co.identity == "example.org/team/proj"
    assert co.branch == "main"


def test_upstream_wins_over_origin(make_repo) -> None:
    repo = make_repo(remote="https://github.com/me/fork")
    repo.git("remote", "add", "upstream", "https://github.com/them/proj")
    assert checkout_for(repo.root).identity == "github.com/them/proj"


def test_no_remote_is_local(make_repo) -> None:
    repo = make_repo()
    assert checkout_for(repo.root).identity == f"local:{repo.root.resolve()}"


def test_non_git_dir(tmp_path: Path) -> None:
    co = checkout_for(tmp_path)
    assert co.git_dir is None and co.branch is None
    assert co.identity == f"local:{tmp_path.resolve()}"


def test_detached_head_has_no_branch(make_repo) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    repo.git("checkout", "-q", "--detach")
    assert checkout_for(repo.root).branch is None
