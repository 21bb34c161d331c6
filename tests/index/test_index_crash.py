"""`rq --index` killed with SIGKILL at any point of a cold or an incremental pass leaves a
sound index, and the next `rq --index` ends with exactly the rows of a clean index —
also when the dead writer's pid has since been given to a live process.

The machinery is test_warm_crash's (the tree, the kill points, the checks after every
kill and after every completed run); only the process differs: `rq --index ROOT` in
its own process group, killed with its parse workers at >= 50 random points of cold
passes (the repository dropped), bulk passes over an indexed repository (hundreds of
files rewritten, added, deleted) and small per-row passes. After every kill: SQLite's
integrity check and foreign keys, FTS5's own integrity check against the committed
symbols, and every file row holding exactly one version of that file. After every
completed run: the same rows, files, FTS and names as a clean `rq --index` of the
same tree in another RQ_HOME, coverage complete, no suspension or lock left.

PID reuse. A kill that leaves the writer's FTS suspension behind (its triggers off)
is followed by handing its pid to a live process, as the kernel may: the marker is
made to name this test's own process, with the dead writer's start time (a new
process under an old number) or, every other time, with no start time at all (as
an rq before start times stamped it). The next `rq --index` must take the owner for
dead and repair: a pass that trusted the live pid left the triggers off and finished
"complete" over an FTS table holding a fraction of the rows. The deterministic tests
below make the same case without randomness, and show what a user sees of it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.store.db import connect
from tests.conftest import Repo, Run
from tests.index.conftest import dump, fts_ok, truth
from tests.index.test_derived import derived_rows, derived_whole
from tests.index.test_warm_crash import (
    Crash,
    Writer,
    kill_rounds,
    killed_then_resumed,
)

INDEXER = Writer("--index", takes_lock=False, quiet=False)
SUSPENDED = "fts_suspended"


def hand_pid_to_a_live_process(conn: sqlite3.Connection, *, keep_start: bool) -> bool:
    """Make the suspension marker name this (live) test process instead of its dead
    writer: with the writer's start time kept (the kernel reused the pid), or with
    none (a bare pid, as older rq wrote it). False when there is no marker."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SUSPENDED,)).fetchone()
    if row is None:
        return False
    state = json.loads(row[0])
    state["pid"] = os.getpid()
    if not keep_start:
        state.pop("start", None)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(state), SUSPENDED))
    return True


def test_kill_9_at_random_points_of_rq_index(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reused: list[int] = []

    def after_kill(c: Crash, pid: int) -> None:
        conn = connect()
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (SUSPENDED,)).fetchone()
            if row is None or json.loads(row[0]).get("pid") != pid:
                return  # no suspension of the dead writer's to hand on
            hand_pid_to_a_live_process(conn, keep_start=len(reused) % 2 == 0)
        finally:
            conn.close()
        reused.append(pid)
        c.log[-1] += " (its pid handed to a live process)"

    c = kill_rounds(make_repo, rq, tmp_path, request, capsys, INDEXER, after_kill)
    print(f"  pid reuse after {len(reused)} of {c.kills} kills")


# --- the same, deterministic: one kill mid bulk pass, the pid handed on ---------------

# After the second batch of a pass commits: the triggers are off (a bulk pass), FTS
# and the names hold that pass's committed batches, the marker names this process.
KILL_AFTER_TWO_BATCHES = """
import os, signal
from rq_engine.index import batch
_write = batch.write_batch
_done = []
def write_batch(*a, **k):
    _write(*a, **k)
    _done.append(1)
    if len(_done) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
batch.write_batch = write_batch
"""

SOURCE = "class Gadget{i}:\n    def whirl_{i}(self, x):\n        return x\n\n\ndef tool_{i}():\n    pass\n"


def big_repo(make_repo: Callable[..., Repo], n: int = 320) -> Repo:
    """Enough files for the bulk path (indexer.COLD_MIN_FILES is 200)."""
    return make_repo({f"pkg{i % 7}/m{i:03}.py": SOURCE.format(i=i) for i in range(n)})


def same_as_a_clean_index(root: Path, rq: Callable[..., Run], clean: Path) -> None:
    r = rq("--index", str(root), env={"RQ_HOME": str(clean)})
    assert r.code == 0, r.err
    ref = connect(clean / "index.db")
    conn = connect()
    try:
        assert dump(conn) == dump(ref) == truth(root)
        assert [n[1:] for n in derived_rows(conn)] == [n[1:] for n in derived_rows(ref)]
        fts_ok(conn)
        derived_whole(conn)
        n_fts = conn.execute("SELECT count(*) FROM symbols_fts_docsize").fetchone()[0]
        assert n_fts == conn.execute("SELECT count(*) FROM symbols").fetchone()[0]
    finally:
        conn.close()
        ref.close()


@pytest.mark.parametrize("keep_start", [True, False], ids=["reused-pid", "bare-pid-marker"])
def test_a_dead_writers_suspension_is_repaired_though_its_pid_lives_on(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path, keep_start: bool
) -> None:
    repo = big_repo(make_repo)

    def hand_on() -> None:
        conn = connect()
        try:
            assert conn.execute("SELECT count(*) FROM symbols").fetchone()[0] > 0
            assert hand_pid_to_a_live_process(conn, keep_start=keep_start)
        finally:
            conn.close()
        # what a user sees meanwhile: not "complete", and why
        r = rq("--status")
        assert r.code == 0 and "complete" not in r.out, r.out
        assert "died with the fuzzy index's triggers suspended" in r.err, r.err
        r = rq("--check")
        assert r.code == 74 and "died with" in r.out and r.err.count("\n") == 1, r

    killed_then_resumed(repo.root, KILL_AFTER_TWO_BATCHES, tmp_path, INDEXER, hand_on)
    same_as_a_clean_index(repo.root, rq, tmp_path / "clean")
    # every name reaches the fuzzy and typo layers again, not only the committed batches'
    r = rq("-q", "Gadget319", cwd=repo.root)
    assert r.code == 0 and r.out.startswith("pkg4/m319.py:1  class  Gadget319"), r
    r = rq("-q", "whirl_31x", cwd=repo.root)  # a typo: the names table's keys
    assert r.code == 0 and "whirl_31" in r.out, r
    assert rq("--status").out.count("complete") == 1
    assert rq("--check").code == 0


def test_status_never_says_complete_over_a_fuzzy_index_that_lost_rows(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """Rows gone from the FTS index with no suspension to explain it (a damaged store,
    a bug): --status shows the repository damaged, --check fails listing it, and the
    next rq --index rebuilds the derived tables."""
    repo = big_repo(make_repo, 40)
    assert rq("--index", str(repo.root)).code == 0
    conn = connect()
    conn.execute(
        "INSERT INTO symbols_fts(symbols_fts, rowid, name)"
        " SELECT 'delete', id, name FROM symbols WHERE id % 3 = 0"
    )
    conn.close()
    r = rq("--status")
    assert r.code == 0 and "damaged" in r.out and "complete" not in r.out, r.out
    assert "the fuzzy index holds" in r.err and r.err.count("\n") == 1, r.err
    r = rq("--check")
    assert r.code == 74 and "fuzzy index" in r.out, r
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "rebuilt the fuzzy index" in r.err, r.err
    assert "complete" in rq("--status").out
    assert rq("--check").code == 0
    same_as_a_clean_index(repo.root, rq, tmp_path / "clean")


# --- --drop while a pass runs -----------------------------------------------------

# Once the pass's first batch has committed: say so, and wait for the test's go-ahead
# (a file), so the drop lands between two batches of the same pass.
PAUSE_AFTER_FIRST_BATCH = """
import os, time
from rq_engine.index import batch
_write = batch.write_batch
_done = []
def write_batch(*a, **k):
    _write(*a, **k)
    _done.append(1)
    if len(_done) == 1:
        open(os.environ["RQ_TEST_PAUSED"], "w").close()
        while not os.path.exists(os.environ["RQ_TEST_GO"]):
            time.sleep(0.01)
batch.write_batch = write_batch
"""


@pytest.mark.parametrize("kind", ["cold", "incremental"])
def test_drop_during_an_index_stops_it_cleanly(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path, kind: str
) -> None:
    import subprocess

    from tests.conftest import rq_bin
    from tests.index.test_warm_crash import until

    repo = big_repo(make_repo)
    if kind == "incremental":
        assert rq("--index", str(repo.root)).code == 0
        for i in range(0, 320, 2):  # a bulk pass over an indexed repository
            repo.write(f"pkg{i % 7}/m{i:03}.py", SOURCE.format(i=i + 1000))
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(PAUSE_AFTER_FIRST_BATCH)
    paused, go = tmp_path / "paused", tmp_path / "go"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]),
        "RQ_TEST_PAUSED": str(paused),
        "RQ_TEST_GO": str(go),
    }
    p = subprocess.Popen(
        [*rq_bin(), "--index", str(repo.root)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until(lambda: paused.exists() or p.poll() is not None, "the first batch", 120)
        assert p.poll() is None, p.communicate()
        d = rq("--drop", str(repo.root))
        assert d.code == 0 and d.err.startswith("rq: dropped local:"), d
    finally:
        go.touch()
        out, err = p.communicate(timeout=120)
    assert "Traceback" not in err and "FOREIGN KEY" not in err, err
    assert (p.returncode, out) == (130, ""), (p.returncode, err)
    assert err.count("\n") == 1 and "was dropped (rq --drop) while this pass" in err, err
    # nothing of the repository is left, and the store is sound
    r = rq("--status")
    assert r.code == 0 and "0 repositories" in r.out and r.err == "", r
    assert rq("--check").code == 0
    conn = connect()
    try:
        for table in ("files", "symbols", "names", "names_pending", "coverage"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
        fts_ok(conn)
    finally:
        conn.close()
    # and the next index of it is a clean one
    assert rq("--index", str(repo.root)).code == 0
    same_as_a_clean_index(repo.root, rq, tmp_path / "clean")
