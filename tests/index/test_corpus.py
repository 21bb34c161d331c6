"""On a real corpus: the pool-parsed index equals the plugins' own output file by file."""

from __future__ import annotations

import sqlite3

import pytest

from rq_engine.index.indexer import index_under
from rq_engine.index.walker import walk
from tests.conftest import corpus
from tests.index.conftest import dump, fts_ok, truth


@pytest.mark.corpus
def test_sinatra_index_equals_ground_truth(db: sqlite3.Connection) -> None:
    root = corpus("sinatra")
    s = index_under(db, root, workers=2)
    assert s.complete and s.files_failed == 0 and s.walked_via == "git"
    assert dump(db) == truth(root)
    fts_ok(db)
    again = index_under(db, root, workers=2)
    assert again.files_unchanged == s.files_seen - s.files_skipped and again.symbols == 0


@pytest.mark.corpus
def test_gostd_walk_is_git_ls_files() -> None:
    import subprocess

    root = corpus("gostd")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    expected = [p.decode() for p in out.split(b"\0") if p and not p.endswith(b"/")]
    assert walk(root, git=True).paths == expected
