"""What the indexer reads: never through a symlink, never a FIFO or socket, and a file that
is not UTF-8 with its identifiers whole. Real git repositories, real `rq` processes."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run

SECRET = "def outside_secret():\n    pass\n"


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.py").write_text(SECRET)
    return out


def _paths(r: Run) -> list[str]:
    assert r.code == 0, r.err
    return [h["path"] for h in json.loads(r.out)["results"]]


def test_symlinks_are_links_never_followed(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """A symlink git stores (out of the repository, to /proc, to a file inside it, to a
    directory, dangling, a loop) is indexed as nothing and counted as skipped; the
    in-repository target is found once, under its own path."""
    out = _outside(tmp_path)
    repo = make_repo({"a.py": "def inside_ok():\n    pass\n"}, commit=False)
    links = {
        "out.py": str(out / "secret.py"),
        "rel_out.py": "../outside/secret.py",
        "status.py": "/proc/self/status",
        "alias.py": "a.py",
        "dir.py": str(out),
        "dangling.py": "missing.py",
        "self.py": "self.py",
        "ping.py": "pong.py",
        "pong.py": "ping.py",
        "outdir": str(out),  # a directory symlink: git lists the link, never inside it
    }
    for name, target in links.items():
        os.symlink(target, repo.root / name)
    repo.commit("links")
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "Traceback" not in r.err
    first = r.err.splitlines()[0]
    assert "indexed 1 files (1 new or changed, 0 removed, 9 skipped, 0 failed" in first
    assert r.err.count("\n") == 1  # no failure lines
    # nothing outside the repository, and the in-repository target once
    assert rq("-q", "outside_secret", cwd=repo.root).code == 1
    assert rq("--text", "outside_secret", cwd=repo.root).code == 1
    assert _paths(rq("-q", "--json", "inside_ok", cwd=repo.root)) == ["a.py"]
    status = rq("--status")
    row = next(ln for ln in status.out.splitlines() if ln.startswith("local:"))
    assert row.split()[1:5] == ["complete", "1", "1", "9"]  # coverage, files, symbols, skipped


def test_a_file_replaced_by_a_symlink_loses_its_rows(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """The incremental pass (which compares stats instead of handing every file to the
    parser) does not follow the link either."""
    out = _outside(tmp_path)
    repo = make_repo(
        {"a.py": "def inside_ok():\n    pass\n", "b.py": "def was_here():\n    pass\n"}
    )
    assert rq("--index", str(repo.root)).code == 0
    assert rq("-q", "was_here", cwd=repo.root).out.startswith("b.py:1")
    (repo.root / "b.py").unlink()
    os.symlink(out / "secret.py", repo.root / "b.py")
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "1 removed, 1 skipped, 0 failed" in r.err
    assert rq("-q", "was_here", cwd=repo.root).code == 1
    assert rq("-q", "outside_secret", cwd=repo.root).code == 1
    assert rq("--index", str(repo.root)).err.count("1 skipped, 0 failed") == 1  # again: same


def test_fifos_and_sockets_are_never_opened(tmp_path: Path, rq: Callable[..., Run]) -> None:
    """In a plain directory (git lists neither): a FIFO, a socket and a symlink to a FIFO
    do not hang the pass, nor a warming search's read of the files (the leaf tier);
    symlinked directory loops end the walk; a .gitignore that is a FIFO or a symlink
    is not read, as git reads neither."""
    plain = tmp_path / "plain"
    (plain / "docs").mkdir(parents=True)
    (plain / "ok.py").write_text("def fifo_neighbour():\n    pass\n")
    (plain / "docs" / "notes.txt").write_text("no source here")
    os.mkfifo(plain / "pipe.py")  # opening it for reading would wait for a writer
    os.mkfifo(tmp_path / "elsewhere.py")
    os.symlink(tmp_path / "elsewhere.py", plain / "link.py")
    os.symlink(plain, plain / "again")  # directory loops: the walk never enters a link
    os.symlink("..", plain / "docs" / "up")
    os.mkfifo(plain / "docs" / ".gitignore")  # the walk reads no FIFO for its rules
    (tmp_path / "ignore-all").write_text("*.py\n")
    os.symlink(tmp_path / "ignore-all", plain / ".gitignore")  # nor follows a link (git)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(plain / "sock.py"))
        # a pass limited to a subtree (with no source in it) leaves coverage warming
        # and nothing indexed: the next search reads every listed file for its leaf
        # (index/tiers.py) before it parses them
        assert rq("--index", str(plain), "--path", "docs", timeout=60).code == 0
        r = rq("-q", "fifo_neighbour", cwd=plain, timeout=60)
        assert r.code == 0 and r.out.startswith("ok.py:1")
        r = rq("--index", str(plain), timeout=60)
        assert r.code == 0 and "Traceback" not in r.err
        assert "indexed 1 files (0 new or changed, 0 removed, 1 skipped, 2 failed" in r.err
        assert "rq:   pipe.py: not a regular file" in r.err
        assert "rq:   sock.py: not a regular file" in r.err
    finally:
        sock.close()


LATIN_PY = "def caf\xe9_latin():\n    pass\n\n# \xe9t\xe9\ndef after_latin():\n    pass\n"
LATIN_RB = (
    "class Caf\xe9Klasse\n"
    "  attr_reader :caf\xe9_attr\n"
    "  def caf\xe9_endless = 1\n"
    "  def after_endless\n"
    "  end\n"
    "end\n"
)


def test_a_latin1_file_keeps_its_identifiers_whole(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """`caf\\xe9_latin` is `café_latin`, not `_latin`; Ruby's endless `def` after it is
    not lost; every line stays exact; counted as "not UTF-8"."""
    repo = make_repo({"utf8.py": "def na\u00efve_utf8():\n    pass\n"}, commit=False)
    (repo.root / "latin.py").write_bytes(LATIN_PY.encode("latin-1"))
    (repo.root / "latin.rb").write_bytes(LATIN_RB.encode("latin-1"))
    repo.commit()
    # the first search indexes the repository itself (block until answered): its
    # leaf tier must find the Latin-1 name as the parse reads it
    r = rq("-q", "caf\xe9_latin", cwd=repo.root)
    assert r.code == 0 and r.out.startswith("latin.py:1  function  caf\xe9_latin")
    assert rq("--drop", str(repo.root)).code == 0
    r = rq("--index", str(repo.root))
    assert r.code == 0 and ", 2 not UTF-8)" in r.err
    expect = {
        "caf\xe9_latin": "latin.py:1",
        "after_latin": "latin.py:5",
        "Caf\xe9Klasse": "latin.rb:1",
        "caf\xe9_attr": "latin.rb:2",
        "caf\xe9_endless": "latin.rb:3",
        "after_endless": "latin.rb:4",
        "na\u00efve_utf8": "utf8.py:1",  # a UTF-8 neighbour is read as it always was
    }
    for name, where in expect.items():
        r = rq("-q", name, cwd=repo.root)
        assert r.code == 0 and r.out.startswith(f"{where}  "), (name, r.out)
        assert name in r.out.splitlines()[0]
    assert "\ufffd" not in rq("-q", "attr", cwd=repo.root).out
    assert rq("-q", "--json", "_latin", cwd=repo.root).out.count('"name": "_latin"') == 0


def test_a_warming_search_reads_a_latin1_file_as_the_parse_does(tmp_path: Path) -> None:
    """The leaf tier (the files a warming search parses first and then answers from) holds
    the Latin-1 file for its own name: read with a UTF-8 decoding it would not, and the
    search could answer before the file is parsed."""
    from rq_engine.index import tiers

    (tmp_path / "latin.py").write_bytes(LATIN_PY.encode("latin-1"))
    (tmp_path / "other.py").write_text("def unrelated():\n    pass\n")
    os.symlink("latin.py", tmp_path / "alias.py")  # never read: the parse skips it too
    paths = ["alias.py", "latin.py", "other.py"]
    _, leaf_tier, whole = tiers.order(paths, str(tmp_path), leaf="caf\xe9_latin")
    assert leaf_tier == {"latin.py"} and whole


def test_the_live_scan_of_an_untracked_directory_reads_alike(
    tmp_path: Path, rq: Callable[..., Run]
) -> None:
    """A query in a plain directory nobody indexed scans it live, through the same walk
    and parse: the symlink out is not followed, the FIFO not opened."""
    out = _outside(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "here.py").write_text("def live_here():\n    pass\n")
    os.symlink(out / "secret.py", plain / "leak.py")
    os.mkfifo(plain / "pipe.py")
    r = rq("-q", "live_here", cwd=plain, timeout=60)
    assert r.code == 0 and r.out.startswith("here.py:1  function  live_here")
    r = rq("-q", "outside_secret", cwd=plain, timeout=60)
    assert r.code == 1 and r.out == ""
