"""Binary, oversized, non-UTF-8, dangling, and non-regular files: counted, never fatal."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.indexer import index_under
from tests.conftest import Repo, Run
from tests.index.conftest import dump


def test_bad_files_are_counted_and_the_rest_indexed(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_MAX_FILE_BYTES", "20000")
    repo = make_repo({"good.py": "def good():\n    pass\n"}, commit=False)
    (repo.root / "binary.py").write_bytes(b"def bin():\n    pass\n\x00\x01\x02")
    repo.write("big.py", "def big():\n    pass\n" + "# pad\n" * 4000)
    repo.write("bundle.min.js", "function mini(){return 1}" + ";var a=1" * 2100 + "\n")
    (repo.root / "latin.py").write_bytes(
        "def caf\xe9_x():\n    pass\n\ndef plain():\n    pass\n".encode("latin-1")
    )
    os.symlink("missing-target.py", repo.root / "dangling.py")
    s = index_under(db, repo.root, workers=1)
    assert s.complete
    assert s.files_seen == 6
    assert s.files_skipped == 4  # binary + oversized + minified + the symlink (never followed)
    assert s.files_symlinks == 1 and s.files_failed == 0 and s.errors == []
    assert s.files_bad_encoding == 1 and s.files_indexed == 2  # latin.py is still indexed
    names = {r[1] for r in dump(db)}
    assert {"good", "plain", "caf\xe9_x"} <= names and not {"bin", "big", "mini"} & names
    cov = db.execute(
        "SELECT status, files_seen, files_indexed, files_skipped, files_failed FROM coverage"
    ).fetchone()
    assert cov == ("complete", 6, 2, 4, 0)


def test_a_file_that_turns_binary_loses_its_rows(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": "def a():\n    pass\n"})
    index_under(db, repo.root, workers=1)
    (repo.root / "a.py").write_bytes(b"\x00binary now, longer than before")
    s = index_under(db, repo.root, workers=1)
    assert s.files_skipped == 1
    assert dump(db) == [] and db.execute("SELECT count(*) FROM files").fetchone() == (0,)


def test_fifo_in_a_plain_directory_is_a_failure_not_a_hang(
    tmp_path: Path, db: sqlite3.Connection
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ok.py").write_text("def ok():\n    pass\n")
    os.mkfifo(plain / "pipe.py")  # opening it for reading would block forever
    s = index_under(db, plain, workers=1)
    assert s.walked_via == "native" and s.complete
    assert s.files_failed == 1 and any("pipe.py: not a regular file" in e for e in s.errors)
    assert [r[1] for r in dump(db)] == ["ok"]
    assert db.execute("SELECT identity FROM repositories").fetchone() == (f"local:{plain}",)


def test_a_file_name_that_is_not_utf8_is_a_failure(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"ok.py": "def ok():\n    pass\n"}, commit=False)
    with open(os.path.join(os.fsencode(repo.root), b"bad\xff.py"), "wb") as f:
        f.write(b"def bad():\n    pass\n")
    s = index_under(db, repo.root, workers=1)
    assert s.complete and s.files_failed == 1 and s.files_indexed == 1
    assert any("file name is not UTF-8" in e for e in s.errors)
    assert [r[1] for r in dump(db)] == ["ok"]


@pytest.mark.parametrize("first", [True, False])
def test_a_directory_named_like_a_source_file_is_not_a_file(
    make_repo: Callable[..., Repo], db: sqlite3.Connection, first: bool
) -> None:
    """`lib.py -> pkg/` (a symlink git lists, to a directory): a symlink like any other,
    skipped and counted, never a failure, on a first pass (no stat before the workers)
    and on a later one."""
    repo = make_repo({"pkg/m.py": "def m():\n    pass\n", "a.py": "def a():\n    pass\n"})
    if not first:
        index_under(db, repo.root, workers=1)
    os.symlink("pkg", repo.root / "lib.py")
    repo.commit("a directory symlink")
    s = index_under(db, repo.root, workers=1)
    assert s.files_failed == 0 and s.errors == [] and s.complete
    assert (s.files_seen, s.files_skipped, s.files_symlinks) == (3, 1, 1)
    assert sorted(r[0] for r in dump(db)) == ["a.py", "pkg/m.py"]


def test_a_broken_parser_install_fails_the_files_not_the_pass(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """The language pack failing to import is reported per file, exit 0: a first pass
    imports it early (while git runs) and must not turn that into a traceback."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "tree_sitter_language_pack.py").write_text('raise ImportError("simulated")\n')
    repo = make_repo({"a.py": "def a():\n    pass\n", "b.py": "def b():\n    pass\n"})
    r = rq("--index", str(repo.root), env={"PYTHONPATH": str(shadow)})
    assert r.code == 0, r.err
    assert "Traceback" not in r.err
    assert "2 failed" in r.err and "a.py: no plugin for python: simulated" in r.err
