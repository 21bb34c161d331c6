"""Incremental passes leave exactly the right rows: edits, renames, deletions, ignores."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable

from rq_engine.core.identity import checkout_for
from rq_engine.index.indexer import index_under, repository_id_for, run_index
from tests.conftest import Repo
from tests.index.conftest import dump, fts_ok, truth

A = "class Alpha:\n    def run(self):\n        pass\n\n\ndef helper():\n    return 1\n"
B = "def beta_one():\n    pass\n\n\ndef beta_two():\n    pass\n"
C = "class Gamma:\n    pass\n"


def _names(conn: sqlite3.Connection) -> set[str]:
    return {r[1] for r in dump(conn)}


def test_first_pass_equals_ground_truth(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": A, "pkg/b.py": B, "README.md": "# not code\n"})
    s = index_under(db, repo.root, workers=1)
    assert s.complete and s.files_seen == 2 and s.files_indexed == 2 and s.files_failed == 0
    assert dump(db) == truth(repo.root)
    assert s.symbols == s.symbols_total == len(truth(repo.root))
    rid = repository_id_for(db, checkout_for(repo.root))
    assert rid == s.repository_id
    assert db.execute("SELECT status, files_seen, files_indexed FROM coverage").fetchone() == (
        "complete",
        2,
        2,
    )
    paths = {r[0] for r in db.execute("SELECT path FROM files")}
    assert paths == {"a.py", "pkg/b.py"}  # repo-relative, '/'-separated, only known languages
    fts_ok(db)


def test_edit_rename_delete_and_ignore(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": A, "pkg/b.py": B, "c.py": C})
    index_under(db, repo.root, workers=1)
    before_ids = dict(db.execute("SELECT path, id FROM files").fetchall())

    repo.write("a.py", A.replace("helper", "helper_renamed") + "\n\ndef added():\n    pass\n")
    repo.git("mv", "pkg/b.py", "pkg/b2.py")
    (repo.root / "c.py").unlink()
    repo.write("new.py", "def fresh():\n    pass\n")
    s = index_under(db, repo.root, workers=1)

    assert dump(db) == truth(repo.root)
    names = _names(db)
    assert {"helper_renamed", "added", "beta_one", "fresh"} <= names
    assert not {"helper", "Gamma"} & names
    assert s.files_indexed == 3 and s.files_deleted == 2 and s.files_unchanged == 0
    after_ids = dict(db.execute("SELECT path, id FROM files").fetchall())
    assert after_ids["a.py"] == before_ids["a.py"]  # updated in place, not re-created
    assert set(after_ids) == {"a.py", "pkg/b2.py", "new.py"}
    # no orphan symbols anywhere
    assert db.execute(
        "SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)"
    ).fetchone() == (0,)
    fts_ok(db)
    hits = db.execute(
        "SELECT s.name FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid "
        "WHERE symbols_fts MATCH 'ren'"
    ).fetchall()
    assert hits == [("helper_renamed",)]

    # a file that becomes ignored loses its rows
    repo.write(".gitignore", "new.py\n")
    s = index_under(db, repo.root, workers=1)
    assert s.files_deleted == 1
    assert dump(db) == truth(repo.root)
    assert "fresh" not in _names(db)


def test_unchanged_mtime_and_size_skip_the_read(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    """Git's racy behaviour, deliberately: same mtime_ns + size => the file is not read.
    A content change that restores both is invisible until the mtime moves."""
    repo = make_repo({"a.py": "def aaaa():\n    pass\n"})
    index_under(db, repo.root, workers=1)
    p = repo.root / "a.py"
    st = p.stat()
    p.write_text("def bbbb():\n    pass\n")  # same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    s = index_under(db, repo.root, workers=1)
    assert s.files_unchanged == 1 and s.files_indexed == 0
    assert _names(db) == {"aaaa"}  # not re-read
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    s = index_under(db, repo.root, workers=1)
    assert s.files_indexed == 1 and _names(db) == {"bbbb"}


def test_touched_file_with_same_content_only_updates_mtime(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": A})
    index_under(db, repo.root, workers=1)
    ids = db.execute("SELECT id FROM symbols ORDER BY id").fetchall()
    p = repo.root / "a.py"
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    s = index_under(db, repo.root, workers=1)
    assert s.files_unchanged == 1 and s.files_indexed == 0 and s.symbols == 0
    assert db.execute("SELECT id FROM symbols ORDER BY id").fetchall() == ids  # untouched rows
    assert db.execute("SELECT mtime FROM files").fetchone() == (st.st_mtime_ns + 5_000_000_000,)


def test_pool_and_in_process_parse_agree(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    files = {f"m{i:03}.py": f"class K{i}:\n    def m{i}(self):\n        pass\n" for i in range(80)}
    repo = make_repo(files)
    s = index_under(db, repo.root, workers=2)  # 80 files > IN_PROCESS_MAX: a real pool
    assert s.files_indexed == 80 and s.files_failed == 0
    assert dump(db) == truth(repo.root)


def test_subtree_pass_is_a_seed_not_a_fence(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": A, "pkg/b.py": B})
    s = run_index(db, checkout_for(repo.root), subtrees=["pkg"], workers=1)
    assert not s.complete
    assert {r[0] for r in dump(db)} == {"pkg/b.py"}
    assert db.execute("SELECT status FROM coverage").fetchone() == ("warming",)
    s = index_under(db, repo.root, workers=1)
    assert s.complete and dump(db) == truth(repo.root)


def test_deadline_and_cancel_stop_but_keep_committed_batches(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    import time

    from rq_engine.search.types import CancelToken

    files = {f"m{i:03}.py": f"def f{i}():\n    pass\n" for i in range(40)}
    repo = make_repo(files)
    s = run_index(
        db, checkout_for(repo.root), deadline=time.monotonic() - 1, workers=1, batch_files=5
    )
    assert s.timed_out and not s.complete
    assert 0 < s.files_indexed < 40
    assert db.execute("SELECT count(*) FROM files").fetchone()[0] == s.files_indexed
    assert db.execute("SELECT status FROM coverage").fetchone() == ("warming",)
    tok = CancelToken()
    tok.cancel()
    s2 = run_index(db, checkout_for(repo.root), cancel=tok, workers=1, batch_files=5)
    assert s2.cancelled and not s2.complete
    s3 = index_under(db, repo.root, workers=1)  # resumes: the committed work is not redone
    assert s3.complete and s3.files_unchanged == s.files_indexed + s2.files_indexed
    assert dump(db) == truth(repo.root)


def test_a_checkout_whose_identity_changes_moves_and_the_orphan_goes(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    repo = make_repo({"a.py": A})
    s1 = index_under(db, repo.root, workers=1)
    assert s1.identity == f"local:{repo.root}"
    repo.git("remote", "add", "origin", "git@github.com:Org/Moved.git")
    s2 = index_under(db, repo.root, workers=1)
    assert s2.identity == "github.com/Org/Moved" and s2.repository_id != s1.repository_id
    assert db.execute("SELECT identity FROM repositories").fetchall() == [("github.com/Org/Moved",)]
    assert db.execute("SELECT count(*) FROM checkouts").fetchone() == (1,)
    assert dump(db) == truth(repo.root)
    fts_ok(db)


def test_a_moved_checkout_is_pruned_when_its_repository_is_next_indexed(
    make_repo: Callable[..., Repo], db: sqlite3.Connection
) -> None:
    url = "https://github.com/Org/Two.git"
    one = make_repo({"a.py": A}, name="one", remote=url)
    two = make_repo({"a.py": A}, name="two", remote=url)
    index_under(db, one.root, workers=1)
    index_under(db, two.root, workers=1)
    assert db.execute("SELECT count(*) FROM checkouts").fetchone() == (2,)
    one.root.rename(one.root.with_name("one-moved"))
    index_under(db, two.root, workers=1)
    roots = [r[0] for r in db.execute("SELECT root_path FROM checkouts")]
    assert roots == [str(two.root)]
