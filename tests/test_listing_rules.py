"""What git lists can change with no directory changing, and a path can go behind a link.

A miss's quick check trusts the directory record (index/dirrecord.py): no
directory changed, so no file came or went. Three things break that without
touching a directory's entries — an ignore rule edited in place (an untracked
`.gitignore`, `.git/info/exclude`), and a directory's mtime put back (`touch -d`,
`tar -x`, `cp -a`) after a file was added — and a symlink makes an lstat of
a path reach a file git no longer lists (`mv pkg pkg2; ln -s pkg2 pkg`). Each must
be seen by the next answer: real `rq` processes on real repositories, inside and
outside the recheck window (test_miss_freshness's `quiet`).
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run
from tests.test_miss_freshness import FILES, miss, q, quiet, spy
from tests.test_warming import db, locs

__all__ = ["quiet", "spy"]  # (fixtures, used by name)


def indexed(make_repo: Callable[..., Repo], rq: Callable[..., Run], env: dict[str, str]) -> Repo:
    """An indexed repository of FILES whose misses take the quick path (its record made)."""
    repo = make_repo(FILES)
    return settled(repo, rq, env)


def settled(repo: Repo, rq: Callable[..., Run], env: dict[str, str]) -> Repo:
    assert rq("--index", str(repo.root), env=env).code == 0
    for _ in range(2):  # (the first lists what git tracks: the second is narrowed)
        assert miss(rq, repo, env).code == 1
    return repo


def excluded(repo: Repo, rq: Callable[..., Run], env: dict[str, str], exclude: Path) -> Repo:
    """`repo` with ex.py, which `exclude` (an info/exclude file) leaves out, indexed and
    settled: `excluded_fn` is no match."""
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("ex.py\n")
    repo.write("ex.py", "def excluded_fn():\n    pass\n")
    settled(repo, rq, env)
    assert q(rq, repo, "excluded_fn", env).code == 1
    return repo


def test_an_untracked_gitignore_edited_in_place(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    repo.write(".gitignore", "hid.py\n")  # never committed
    repo.write("hid.py", "def hidden_fn():\n    pass\n")
    repo.write("shown.py", "def shown_fn():\n    pass\n")
    settled(repo, rq, quiet)
    assert q(rq, repo, "hidden_fn", quiet).code == 1
    (repo.root / ".gitignore").write_text("shown.py\n")  # in place: the root keeps its entries
    r = q(rq, repo, "hidden_fn", quiet)
    assert (r.code, locs(r)) == (0, ["hid.py:1"]), r.err
    r = q(rq, repo, "shown_fn", quiet)  # now ignored: no longer indexed
    assert (r.code, r.out) == (1, ""), r.out


def test_a_rule_dropped_from_info_exclude(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    exclude = repo.root / ".git/info/exclude"
    excluded(repo, rq, quiet, exclude)
    exclude.write_text("lib/\n")  # ex.py listed again; lib/util.py excluded
    r = q(rq, repo, "excluded_fn", quiet)
    assert (r.code, locs(r)) == (0, ["ex.py:1"]), r.err
    assert miss(rq, repo, quiet).code == 1
    r = q(rq, repo, "slugify", quiet)  # (tracked files stay listed, excluded or not)
    assert (r.code, locs(r)) == (0, ["lib/util.py:1"]), r.err


def test_a_new_file_whose_directory_mtime_was_put_back(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = indexed(make_repo, rq, quiet)
    app = repo.root / "app"
    before = os.stat(app)
    repo.write("app/unpacked.py", "def unpacked_fn():\n    pass\n")
    os.utime(app, ns=(before.st_atime_ns, before.st_mtime_ns))  # as tar -x and cp -a do
    assert os.stat(app).st_mtime_ns == before.st_mtime_ns
    r = q(rq, repo, "unpacked_fn", quiet)
    assert (r.code, locs(r)) == (0, ["app/unpacked.py:1"]), r.err


def test_a_file_replaced_by_a_link_to_its_new_place(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = indexed(make_repo, rq, quiet)
    os.rename(repo.root / "lib/util.py", repo.root / "lib/real.py")
    os.symlink("real.py", repo.root / "lib/util.py")  # git: a link now, never followed
    assert miss(rq, repo, quiet).code == 1
    r = q(rq, repo, "slugify", quiet)
    assert (r.code, locs(r)) == (0, ["lib/real.py:1"]), r.err


def test_a_directory_replaced_by_a_link_to_its_new_place(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = indexed(make_repo, rq, quiet)
    os.rename(repo.root / "lib", repo.root / "lib2")
    os.symlink("lib2", repo.root / "lib")  # git lists nothing behind a link: lib/util.py is gone
    assert miss(rq, repo, quiet).code == 1
    r = q(rq, repo, "slugify", quiet)
    assert (r.code, locs(r)) == (0, ["lib2/util.py:1"]), r.err
    repo.commit("moved")  # git: lib/util.py deleted, lib a link, lib2/util.py added
    assert miss(rq, repo, quiet).code == 1
    r = q(rq, repo, "slugify", quiet)
    assert (r.code, locs(r)) == (0, ["lib2/util.py:1"]), r.err


def test_a_malformed_size_limit_drops_no_file(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    # `-1` read as a limit made every file too big: the edited file's rows went
    repo = indexed(make_repo, rq, quiet)
    with open(repo.root / "lib/util.py", "a") as f:
        f.write("\ndef appended_later():\n    pass\n")
    for bad in ("-1", "0", "abc"):
        r = q(rq, repo, "appended_later", {**quiet, "RQ_MAX_FILE_BYTES": bad})
        assert (r.code, locs(r)) == (0, ["lib/util.py:4"]), (bad, r.err)
        assert locs(q(rq, repo, "slugify", quiet)) == ["lib/util.py:1"], bad


def test_a_rule_dropped_from_a_worktrees_shared_exclude(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    main = make_repo(FILES)
    wt = Repo(main.root.parent / "wt")
    main.git("worktree", "add", "-q", str(wt.root))
    exclude = Path(main.git("rev-parse", "--git-common-dir").strip())
    exclude = (exclude if exclude.is_absolute() else main.root / exclude) / "info/exclude"
    excluded(wt, rq, quiet, exclude)  # (a linked worktree has no info/exclude of its own)
    exclude.write_text("")
    r = q(rq, wt, "excluded_fn", quiet)
    assert (r.code, locs(r)) == (0, ["ex.py:1"]), r.err


def test_a_record_an_older_rq_wrote_is_made_again(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    # An older rq recorded mtimes under `dirs:`, and no rule files. A directory's ctime
    # is its mtime until something puts the mtime back, so read as ctimes that record
    # would pass, and an exclude rule dropped later would never be seen.
    repo = make_repo(FILES)
    exclude = repo.root / ".git/info/exclude"
    excluded(repo, rq, quiet, exclude)
    conn = db()
    with conn:  # (the record as an older rq left it: its directories, under its key)
        ((key, blob),) = conn.execute(
            "SELECT key, value FROM meta WHERE key LIKE 'dirc:%' OR key LIKE 'dirs:%'"
        ).fetchall()
        dirs = {d: m for d, m in marshal.loads(blob).items() if d in ("", "app", "lib")}
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        conn.execute("INSERT INTO meta VALUES (?, ?)", ("dirs:" + key[5:], marshal.dumps(dirs)))
    conn.close()
    for _ in range(2):
        assert miss(rq, repo, quiet).code == 1
    exclude.write_text("")
    r = q(rq, repo, "excluded_fn", quiet)
    assert (r.code, locs(r)) == (0, ["ex.py:1"]), r.err
