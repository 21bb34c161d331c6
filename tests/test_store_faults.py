"""The store-fault matrix: on a store it cannot trust or cannot write, every command gives
its exit code and at most one `rq:` line on stderr — never a traceback.

Each fault is made on a real store (`rq --index` of a real git repository), and every
command runs as a real process against it: `-q`, `--json`, `--text`, `--status`,
`--index`, `--check` and `--usage`.

- A store rq cannot trust — truncated, garbage, a damaged page, written by a newer rq,
  RQ_HOME naming a file — is refused: 74 from every command, one line.
- A store rq cannot write — a read-only file, directory or mount — still answers
  queries, `--status`, `--check` and `--usage` (0, and the right answer) and writes
  nothing; `--index` refuses it (74, one line).
- A full disk (a 1 MiB tmpfs): what needs to write fails with 74 and one line; what
  only reads (`--status`, `--check`, `--usage`) answers.

As root, a read-only file or directory is writable anyway (CAP_DAC_OVERRIDE): those
cases run rq under `setpriv` with that capability dropped, and are skipped, with the
reason, where that cannot be done. The mount cases need CAP_SYS_ADMIN (a container's
root usually has it) and are skipped, with the reason, without it.
"""

from __future__ import annotations

import os
import pty
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, read_pty, rq_bin

COMMANDS: dict[str, tuple[str, ...]] = {
    "-q": ("-q", "Widget7"),
    "--json": ("--json", "Widget7"),
    "--text": ("--text", "widget spin"),
    "--status": ("--status",),
    "--index": ("--index", "."),
    "--check": ("--check",),
    "--usage": ("--usage",),
}
REFUSED = dict.fromkeys(COMMANDS, 74)
READ_ONLY = {**dict.fromkeys(COMMANDS, 0), "--index": 74}
# what must write fails, what only reads answers; a query answers when what it needs is
# committed already, and fails when the writes it needs do. --check fails when a write
# cut short left name changes queued (it lists them; the next writer applies them).
DISK_FULL: dict[str, int | set[int]] = {
    **REFUSED,
    **dict.fromkeys(("-q", "--json", "--text"), {0, 2, 74}),
    "--status": 0,
    "--check": {0, 74},
    "--usage": 0,
}

SOURCE = "class Widget{i}:\n    def spin{i}(self):\n        pass\n"


@dataclass
class Store:
    repo: Repo
    home: Path  # RQ_HOME
    db: Path
    prefix: list[str]  # what rq runs under (setpriv, for the read-only cases as root)


def run(store: Store, args: tuple[str, ...]) -> Run:
    p = subprocess.run(
        [*store.prefix, *rq_bin(), *args],
        cwd=store.repo.root,
        env={**os.environ, "RQ_HOME": str(store.home), "RQ_WAIT_BUDGET_MS": "5000"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return Run(p.returncode, p.stdout, p.stderr)


def matrix(store: Store, codes: dict[str, int] | dict[str, int | set[int]]) -> dict[str, Run]:
    """Every command against the store: its exit code, at most one `rq:` line on
    stderr (exactly one when it fails), no traceback."""
    got: dict[str, Run] = {}
    for name, args in COMMANDS.items():
        r = run(store, args)
        got[name] = r
        lines = r.err.splitlines()
        assert "Traceback" not in r.err, (name, r.err)
        want = codes[name]
        assert r.code in (want if isinstance(want, set) else {want}), (name, r.code, r.err)
        assert len(lines) <= 1 and (r.code == 0 or len(lines) == 1), (name, r.err)
        assert all(line.startswith("rq: ") for line in lines), (name, r.err)
    return got


@pytest.fixture
def indexed(make_repo: Callable[..., Repo], isolated_home: Path) -> Store:
    """A complete index of a 30-file repository, checkpointed into index.db alone."""
    repo = make_repo({f"m{i:02}.py": SOURCE.format(i=i) for i in range(30)})
    home = isolated_home / "data"
    p = subprocess.run([*rq_bin(), "--index", str(repo.root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    db = home / "index.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()  # the last connection: the -wal and -shm files go
    assert not (home / "index.db-wal").exists()
    return Store(repo, home, db, [])


def drop_dac(store: Store, read_only: Path) -> Store:
    """Run rq without the power to write what mode bits forbid (root has it), and make
    sure `read_only` is then read-only to it."""
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop CAP_DAC_OVERRIDE with")
        store.prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    probe = subprocess.run(
        [
            *store.prefix,
            sys.executable,
            "-c",
            "import os, sys; sys.exit(os.access(sys.argv[1], os.W_OK))",
            str(read_only),
        ],
        capture_output=True,
        timeout=30,
    )
    if probe.returncode != 0:
        pytest.skip(f"cannot make {read_only} read-only to rq (CAP_DAC_OVERRIDE stays)")
    return store


@pytest.fixture
def mounts() -> Iterator[Callable[..., None]]:
    """mount(args...), undone at the end; skips the test without CAP_SYS_ADMIN."""
    done: list[Path] = []

    def mount(*args: str) -> None:
        p = subprocess.run(["mount", *args], capture_output=True, text=True)
        if p.returncode != 0:
            pytest.skip(f"cannot mount here (needs CAP_SYS_ADMIN): {p.stderr.strip()}")
        done.append(Path(args[-1]))

    yield mount
    for target in reversed(done):
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def page_of(db: Path, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(
            conn.execute(
                "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone()[0]
        )
    finally:
        conn.close()


def damage_page(db: Path, page: int) -> None:
    size = 4096  # rq's pages: SQLite's default
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xa5" * size)


# --- stores rq cannot trust ------------------------------------------------------


def test_a_truncated_store_is_refused(indexed: Store) -> None:
    os.truncate(indexed.db, indexed.db.stat().st_size // 2)
    got = matrix(indexed, REFUSED)
    assert "malformed" in got["-q"].err


def test_a_garbage_store_is_refused(indexed: Store) -> None:
    size = indexed.db.stat().st_size
    indexed.db.write_bytes(random.Random(16).randbytes(size))
    got = matrix(indexed, REFUSED)
    assert "not a database" in got["--text"].err


def test_a_store_with_a_damaged_page_is_refused(indexed: Store) -> None:
    """A page in the middle of the file (the files table's root) overwritten: every
    command that reads it refuses the store (--usage reads only its counters, whole);
    --check lists what SQLite found."""
    damage_page(indexed.db, page_of(indexed.db, "files"))
    got = matrix(indexed, {**REFUSED, "--usage": 0})
    assert got["--check"].out.strip(), "the problems are listed on stdout"
    assert "failed its check" in got["--check"].err


def test_status_and_check_report_damage_no_query_reads(indexed: Store) -> None:
    """A damaged page only the usage counters use: queries still answer (their counter
    is dropped silently), but --status runs SQLite's quick check and says so."""
    r = run(indexed, ("-q", "Widget7"))  # (creates the usage row, on its own page)
    assert r.code == 0
    damage_page(indexed.db, page_of(indexed.db, "usage_daily"))
    r = run(indexed, ("-q", "Widget7"))
    assert (r.code, r.err) == (0, "") and "m07.py:1" in r.out
    r = run(indexed, ("--status",))
    assert r.code == 74 and r.err.count("\n") == 1 and "quick check" in r.err, r
    assert "local:" in r.out  # the table is still shown
    r = run(indexed, ("--check",))
    assert r.code == 74 and r.out.strip() and r.err.count("\n") == 1, r


def test_status_and_check_json_carry_the_damage(indexed: Store) -> None:
    """With --json, the facts the table and the report show, as data: the problems the
    checks found, exit 74 and one `rq:` line as without it."""
    import json

    assert run(indexed, ("-q", "Widget7")).code == 0  # (the usage row, on its own page)
    damage_page(indexed.db, page_of(indexed.db, "usage_daily"))
    r = run(indexed, ("--status", "--json"))
    assert r.code == 74 and r.err.count("\n") == 1 and "quick check" in r.err, r
    doc = json.loads(r.out)
    assert doc["problems"] and [x["coverage"] for x in doc["results"]] == ["complete"]
    plain = run(indexed, ("--check",))
    r = run(indexed, ("--check", "--json"))
    assert (r.code, r.err) == (74, plain.err) and plain.code == 74, r
    doc = json.loads(r.out)
    assert doc["ok"] is False and doc["index"] == str(indexed.db)
    assert [x["problem"] for x in doc["results"]] == plain.out.splitlines()


def test_a_store_from_a_newer_rq_is_refused_naming_both_versions(indexed: Store) -> None:
    conn = sqlite3.connect(indexed.db)
    conn.execute("INSERT INTO schema_migrations(name, applied_at) VALUES ('m999_from_later', 0)")
    conn.commit()
    conn.close()
    version = run(indexed, ("--version",)).out.splitlines()[0]  # "rq 0.1.0"
    got = matrix(indexed, REFUSED)
    for r in got.values():
        assert "newer rq" in r.err and "m999_from_later" in r.err, r.err
        assert f"this {version} knows schema up to m" in r.err, r.err


def test_rq_home_naming_a_file_is_one_error_everywhere(indexed: Store, tmp_path: Path) -> None:
    f = tmp_path / "not-a-dir"
    f.write_text("RQ_HOME points here by mistake\n")
    store = Store(indexed.repo, f, f / "index.db", [])
    got = matrix(store, REFUSED)
    assert {r.err for r in got.values()} == {f"rq: RQ_HOME {f} is not a directory\n"}
    # the picker's start, on a terminal
    master, slave = pty.openpty()
    try:
        p = subprocess.run(
            rq_bin(),
            cwd=indexed.repo.root,
            env={**os.environ, "RQ_HOME": str(f)},
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        os.close(slave)
        read_pty(master)
    finally:
        os.close(master)
    assert (p.returncode, p.stderr) == (74, f"rq: RQ_HOME {f} is not a directory\n".encode())


# --- stores rq cannot write ------------------------------------------------------


def read_only_answers(store: Store) -> None:
    before = store.db.read_bytes()
    got = matrix(store, READ_ONLY)
    assert got["-q"].out.splitlines()[0].startswith("m07.py:1  class  Widget7")
    assert '"path": "m07.py"' in got["--json"].out
    assert "m" in got["--text"].out and "Widget" in got["--text"].out
    assert "complete" in got["--status"].out
    assert got["--check"].out.endswith(": ok\n")
    assert "cannot write the index" in got["--index"].err
    # a miss on the complete index is definitive, as on a writable one
    r = run(store, ("-q", "NoSuchThingAnywhere"))
    assert (r.code, r.out, r.err) == (1, "", "")
    assert store.db.read_bytes() == before, "a read-only store was written"


def test_a_read_only_file_answers_queries(indexed: Store) -> None:
    indexed.db.chmod(0o444)
    store = drop_dac(indexed, indexed.db)
    read_only_answers(store)
    # an edit the store cannot take in: the stale line is not shown, and the answer is
    # "not yet" (2), not a definitive miss
    store.repo.write("m07.py", "\n\n\n" + SOURCE.format(i=7))
    r = run(store, ("-q", "Widget7"))
    assert r.code == 2 and "m07.py:1 " not in r.out and r.err.count("\n") == 1, r


def test_a_read_only_directory_answers_queries(indexed: Store) -> None:
    indexed.home.chmod(0o555)
    try:
        read_only_answers(drop_dac(indexed, indexed.home))
    finally:
        indexed.home.chmod(0o755)


def test_a_read_only_mount_answers_queries(
    indexed: Store, tmp_path: Path, mounts: Callable[..., None]
) -> None:
    ro = tmp_path / "ro-home"
    ro.mkdir()
    mounts("--bind", str(indexed.home), str(ro))
    mounts("-o", "remount,ro,bind", str(ro))
    read_only_answers(Store(indexed.repo, ro, ro / "index.db", []))


def test_a_read_only_store_leaves_other_repositories_warming(
    indexed: Store, make_repo: Callable[..., Repo]
) -> None:
    """A query in a repository the read-only store does not hold cannot index it: it
    says so (2) at once instead of waiting out its budget."""
    other = make_repo({"a.py": "def lonely():\n    pass\n"}, name="other")
    indexed.db.chmod(0o444)
    store = drop_dac(indexed, indexed.db)
    store.repo = other
    for args in (("-q", "lonely"), ("--text", "lonely")):
        r = run(store, args)
        assert r.code == 2 and r.err.count("\n") == 1, (args, r)


# --- a full disk -----------------------------------------------------------------


def test_a_full_disk_fails_writes_with_one_line(
    make_repo: Callable[..., Repo], tmp_path: Path, mounts: Callable[..., None]
) -> None:
    small = tmp_path / "small"
    small.mkdir()
    mounts("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small))
    repo = make_repo({f"pkg/m{i:03}.py": SOURCE.format(i=i) * 12 for i in range(300)})
    store = Store(repo, small / "home", small / "home" / "index.db", [])
    r = run(store, ("--index", "."))  # fills the disk
    assert r.code == 74 and r.err.count("\n") == 1 and "full" in r.err, r
    got = matrix(store, DISK_FULL)
    assert "full" in got["--index"].err
    assert all("full" in got[q].err for q in ("-q", "--json", "--text") if got[q].code == 74)
