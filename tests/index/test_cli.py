"""`rq --index`, `rq --status`, `rq --drop` as real processes: exit codes, stdout vs stderr."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run

A = "class Alpha:\n    def run(self):\n        pass\n"
B = "def beta():\n    pass\n"


def test_index_status_drop_round_trip(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], isolated_home: Path
) -> None:
    repo = make_repo({"a.py": A, "b.py": B, "notes.txt": "x"}, remote="git@github.com:Org/Proj.git")
    r = rq("--index", str(repo.root))
    assert r.code == 0 and r.out == ""
    line = r.err.strip()
    assert re.fullmatch(
        r"rq: indexed 2 files \(2 new or changed, 0 removed, 0 skipped, 0 failed\), "
        r"3 symbols in \d+\.\d\d s — github\.com/Org/Proj",
        line,
    ), line

    r = rq("--index", cwd=repo.root)  # DIR defaults to the working directory
    assert r.code == 0 and "(0 new or changed" in r.err

    r = rq("--status")
    assert r.code == 0 and r.err == ""
    assert re.search(r"^github\.com/Org/Proj\s+complete\s+2\s+3\s+0\s+0\s+\d{4}-", r.out, re.M), (
        r.out
    )
    assert f"  {repo.root}  main  indexed " in r.out
    assert "1 repositories, 1 checkouts, 2 files, 3 symbols; index " in r.out
    assert "(with WAL)" in r.out

    r = rq("--drop", str(repo.root))
    assert r.code == 0 and r.out == ""
    assert r.err.strip() == "rq: dropped github.com/Org/Proj: 1 checkout, 2 files, 3 symbols"
    r = rq("--drop", str(repo.root))
    assert r.code == 1 and r.err.strip() == f"rq: {repo.root} is not indexed; nothing to drop"
    r = rq("--status")
    assert r.code == 0 and "0 repositories, 0 checkouts, 0 files, 0 symbols" in r.out


def test_two_checkouts_of_one_remote_share_a_repository(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    url = "https://github.com/Org/Shared.git"
    one = make_repo({"a.py": A}, name="one", remote=url)
    two = make_repo({"a.py": A}, name="two", remote="git@github.com:Org/Shared.git")
    assert rq("--index", str(one.root)).code == 0
    assert rq("--index", str(two.root)).code == 0
    r = rq("--status")
    assert r.out.count("github.com/Org/Shared") == 1
    assert f"  {one.root}  main" in r.out and f"  {two.root}  main" in r.out
    assert "1 repositories, 2 checkouts, 1 files, 2 symbols" in r.out
    r = rq("--drop", str(two.root))  # forgets the repository, so both locations
    assert r.code == 0 and "2 checkouts, 1 files, 2 symbols" in r.err


def test_failures_are_reported_not_fatal(tmp_path: Path, rq: Callable[..., Run]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ok.py").write_text(B)
    (plain / "bin.py").write_bytes(b"\x00\x00")
    os.symlink("nowhere.py", plain / "dangling.py")
    r = rq("--index", str(plain))
    assert r.code == 0 and r.out == ""
    lines = r.err.splitlines()
    assert "2 skipped, 0 failed" in lines[0] and "), 1 symbols" in lines[0]  # a symlink: a link
    assert lines[1:] == []


def test_usage_and_io_errors_are_one_line(
    tmp_path: Path, rq: Callable[..., Run], make_repo: Callable[..., Repo]
) -> None:
    r = rq("--index", str(tmp_path / "nope"))
    assert (r.code, r.out) == (64, "")
    assert r.err == f"rq: --index {tmp_path / 'nope'}: no such directory\n"
    f = tmp_path / "file.py"
    f.write_text(B)
    r = rq("--drop", str(f))
    assert r.code == 64 and r.err.count("\n") == 1 and "not a directory" in r.err
    repo = make_repo({"a.py": A})
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where RQ_HOME's parent should be")
    r = rq("--index", str(repo.root), env={"RQ_HOME": str(blocker / "home")})
    assert r.code == 74 and r.out == "" and r.err.count("\n") == 1
    assert r.err.startswith("rq: cannot open index ") and "Traceback" not in r.err
    r = rq("--drop", str(repo.root))  # no index at all yet
    assert r.code == 1 and "not indexed" in r.err


def test_status_without_an_index(rq: Callable[..., Run]) -> None:
    r = rq("--status")
    assert r.code == 0 and r.err == "" and r.out.startswith("no repositories indexed")


def test_status_and_check_honour_json(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], isolated_home: Path
) -> None:
    """--json is the table's facts as one object (--ndjson: a repository a line), never the
    table; --check's report likewise."""
    import json

    db = str(isolated_home / "data" / "index.db")
    r = rq("--status", "--json")
    assert (r.code, r.err) == (0, "")
    assert json.loads(r.out) == {"index": db, "bytes": 0, "results": [], "problems": []}
    repo = make_repo({"a.py": A, "b.py": B, "game.lua": "x = 1\n"}, remote="git@github.com:O/P.git")
    assert rq("--index", str(repo.root)).code == 0
    r = rq("--status", "--json")
    assert (r.code, r.err) == (0, "")
    doc = json.loads(r.out)
    assert doc["index"] == db and doc["bytes"] > 0 and doc["problems"] == []
    (row,) = doc["results"]
    assert {k: v for k, v in row.items() if k not in ("updated_at", "checkouts")} == {
        "repository": "github.com/O/P",
        "coverage": "complete",
        "files": 2,
        "symbols": 3,
        "skipped": 0,
        "failed": 0,
        "not_read": {"Lua": 1},
    }
    assert isinstance(row["updated_at"], int)
    (co,) = row["checkouts"]
    assert (co["root"], co["branch"], type(co["indexed_at"])) == (str(repo.root), "main", int)
    r = rq("--status", "--ndjson")
    assert r.code == 0 and [json.loads(line) for line in r.out.splitlines()] == [row]

    r = rq("--check", "--json")
    assert (r.code, r.err) == (0, "")
    assert json.loads(r.out) == {"index": db, "ok": True, "results": []}


def test_index_and_drop_honour_json(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], isolated_home: Path
) -> None:
    """`--index --json` is the summary line's facts as one object on stdout (a repository
    per result, as --status's; --ndjson: a line), and stderr says nothing more; `--drop
    --json` likewise, its miss an empty list with exit 1 and its one line."""
    import json

    db = str(isolated_home / "data" / "index.db")
    repo = make_repo({"a.py": A, "b.py": B, "bin.py": "\x00", "game.lua": "x = 1\n"})
    r = rq("--index", str(repo.root), "--json")
    assert (r.code, r.err) == (0, "")
    doc = json.loads(r.out)
    assert doc["index"] == db
    (row,) = doc["results"]
    assert isinstance(row.pop("seconds"), float)
    assert row == {
        "repository": f"local:{repo.root}",
        "root": str(repo.root),
        "coverage": "complete",
        "files": 2,
        "symbols": 3,
        "indexed": 2,
        "removed": 0,
        "skipped": 1,
        "failed": 0,
        "not_utf8": 0,
        "symlinks": 0,
        "names_cut": 0,
        "not_read": {"Lua": 1},
        "errors": [],
    }
    r = rq("--index", str(repo.root), "--ndjson")
    assert (r.code, r.err) == (0, "")
    (line,) = [json.loads(x) for x in r.out.splitlines()]
    assert (line["indexed"], line["files"], line["coverage"]) == (0, 2, "complete")
    # a seeded pass leaves a new repository's coverage warming, and says so in the object
    seeded = make_repo({"app/a.py": A, "lib/b.py": B}, name="seeded")
    r = rq("--index", str(seeded.root), "--path", "app", "--json")
    assert (r.code, r.err) == (0, "")
    assert json.loads(r.out)["results"][0]["coverage"] == "warming"

    r = rq("--drop", str(repo.root), "--json")
    assert (r.code, r.err) == (0, "")
    assert json.loads(r.out) == {
        "index": db,
        "results": [
            {
                "repository": f"local:{repo.root}",
                "checkouts": 1,
                "files": 2,
                "symbols": 3,
            }
        ],
    }
    r = rq("--drop", str(repo.root), "--json")
    assert r.code == 1 and json.loads(r.out) == {"index": db, "results": []}
    assert r.err == f"rq: {repo.root} is not indexed; nothing to drop\n"


def test_status_shows_control_characters_in_roots_as_escapes(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """A checkout root is the user's data: a newline in it must not start a line of the
    table (a forged repository), nor an ESC drive the terminal; --json keeps it exact."""
    import json

    repo = make_repo({"a.py": A}, name="we\nird\x1b[2Jroot")
    assert rq("--index", str(repo.root)).code == 0
    r = rq("--status")
    assert r.code == 0 and r.err == ""
    assert "\x1b" not in r.out and "\t" not in r.out
    shown = str(repo.root).replace("\n", "\\n").replace("\x1b", "\\x1b")
    lines = r.out.splitlines()
    assert f"local:{shown}" in lines[1]  # the repository's row, whole on its line
    assert any(line.startswith(f"  {shown}  main  indexed ") for line in lines), r.out
    assert len(lines) == 5, r.out  # header, row, checkout, blank, totals
    (row,) = json.loads(rq("--status", "--json").out)["results"]
    assert row["checkouts"][0]["root"] == str(repo.root)


def test_progress_bar_only_on_a_terminal(make_repo: Callable[..., Repo]) -> None:
    import pty
    import subprocess

    from tests.conftest import read_pty, rq_bin

    repo = make_repo({f"m{i}.py": B.replace("beta", f"b{i}") for i in range(5)})
    master, slave = pty.openpty()
    try:
        p = subprocess.run(
            [*rq_bin(), "--index", str(repo.root)],
            stdout=subprocess.PIPE,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        os.close(slave)
        err = read_pty(master)
    finally:
        os.close(master)
    assert p.returncode == 0 and p.stdout == b""
    assert "\rrq: [########################] 5/5 files" in err
    assert "\r\x1b[K" in err  # the bar is cleared before the summary
    assert "rq: indexed 5 files" in err


def test_ctrl_c_keeps_committed_batches(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], isolated_home: Path
) -> None:
    import signal

    from rq_engine.store.db import connect
    from tests.index.conftest import fts_ok, index_stopped_at, resumed, stopped

    # More than 256 files: the first batch cannot hold them all. The pass stops itself
    # once that batch has committed (RQ_INDEX_STOP_AT); Ctrl-C lands there, a known
    # point between two batches, whatever the machine's pace.
    n = 300
    body = "".join(f"def f{k}():\n    pass\n\n" for k in range(30))
    repo = make_repo({f"p{i // 100}/m{i}.py": body for i in range(n)}, commit=False)
    p = index_stopped_at(repo.root, "batch-committed")
    try:
        if stopped(p):
            p.send_signal(signal.SIGINT)  # pending until the pass goes on
    finally:
        out, err = resumed(p)
    assert p.returncode == 130 and out == ""
    assert err.strip().splitlines()[-1] == "rq: interrupted; the batches already written are kept"
    conn = connect()
    kept = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    assert 0 < kept < n
    assert conn.execute("SELECT status FROM coverage").fetchone() == ("warming",)
    fts_ok(conn)  # the cold pass's FTS fill ran on the way out
    # the kept batches' names are in
    assert conn.execute("SELECT count(*) FROM names").fetchone()[0] == 30
    done = {r[0] for r in conn.execute("SELECT path FROM files")}
    conn.close()
    for i in range(n):  # the files never indexed are new either way: make them quick
        if (path := f"p{i // 100}/m{i}.py") not in done:
            repo.write(path, "def g():\n    pass\n")
    r = rq("--index", str(repo.root))
    assert r.code == 0 and f"({n - kept} new or changed" in r.err
    conn = connect()
    from tests.index.test_derived import derived_whole

    derived_whole(conn)
    conn.close()


def test_a_corrupt_index_is_one_line_exit_74(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    from rq_engine.store.paths import index_db_path

    repo = make_repo({"a.py": A})
    db = index_db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"not a database at all" * 300)
    for args in (("--index", str(repo.root)), ("--status",), ("--drop", str(repo.root))):
        r = rq(*args)
        assert r.code == 74 and r.out == "" and r.err.count("\n") == 1, (args, r)
        assert "file is not a database" in r.err
