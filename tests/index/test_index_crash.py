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

Named phases. The same checks after a pass killed at each named point of it
(RQ_INDEX_KILL_AT=<phase>[:<n>], rq_engine/index/crashpoints.py): the walk read, a
batch written but not committed, a batch committed, coverage committed — on a cold
pass and on an incremental one — plus what each point must leave: nothing of an
uncommitted batch, whole committed ones.

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
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.store.db import connect
from tests.conftest import Repo, Run
from tests.index.conftest import (
    Row,
    dump,
    fts_ok,
    index_stopped_at,
    resumed,
    stopped,
    truth,
)
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


# --- killed at each named phase of a pass ------------------------------------------


def by_path(rows: list[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row)
    return out


def sound_after_a_kill(versions: list[dict[str, list[Row]]]) -> dict[str, list[Row]]:
    """What a kill may never leave: a store SQLite, its foreign keys or FTS5 find fault
    with, or a file holding anything but all the rows of one version of it in
    `versions`. Returns the rows of each indexed file."""
    conn = connect()
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
        held = by_path(dump(conn))
        for (path,) in conn.execute("SELECT path FROM files"):
            rows = held.get(path, [])
            assert any(rows == v.get(path) for v in versions), f"{path}: rows of no version"
        return held
    finally:
        conn.close()


@pytest.mark.parametrize(
    "phase",
    [
        "walked",
        "batch-written",
        "batch-committed",
        "batch-written:2",
        "batch-committed:2",
        "finished",
    ],
)
def test_a_cold_pass_killed_at_each_phase_loses_nothing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path, phase: str
) -> None:
    """A first `rq --index` (the bulk path: 320 files make at least two batches) killed
    at each named point: the store holds whole files of committed batches only, and
    the next pass ends with a clean index's rows and answers."""
    repo = big_repo(make_repo)
    want = by_path(truth(repo.root))
    r = rq("--index", str(repo.root), env={"RQ_INDEX_KILL_AT": phase})
    assert (r.code, r.out) == (-signal.SIGKILL, ""), r
    held = sound_after_a_kill([want])
    if phase in ("walked", "batch-written"):
        assert held == {}  # nothing parsed was committed: the first batch rolled back
    elif phase == "finished":
        assert held == want
    else:  # whole committed batches; before the second batch, not all of them
        assert held and (len(held) < len(want) or phase == "batch-committed:2"), len(held)
    status = rq("--status")
    assert status.code == 0 and ("complete" in status.out) == (phase == "finished"), status
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "Traceback" not in r.err, r.err
    same_as_a_clean_index(repo.root, rq, tmp_path / "clean")
    q = rq("-q", "Gadget319", cwd=repo.root)
    assert q.code == 0 and q.out.startswith("pkg4/m319.py:1  class  Gadget319"), q
    assert rq("-q", "whirl_31x", cwd=repo.root).code == 0  # a typo: the names table's keys
    assert "complete" in rq("--status").out and rq("--check").code == 0


@pytest.mark.parametrize("phase", ["walked", "batch-written", "batch-committed", "finished"])
def test_an_incremental_pass_killed_at_each_phase_loses_nothing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path, phase: str
) -> None:
    """An `rq --index` over an indexed repository (40 files rewritten, 4 deleted, 4
    added: the per-row path) killed at each named point: every file holds its old
    rows or its new ones, an uncommitted batch nothing, and the next pass ends with a
    clean index's rows and answers."""
    repo = big_repo(make_repo)
    assert rq("--index", str(repo.root)).code == 0
    old = by_path(truth(repo.root))
    for i in range(40):
        repo.write(f"pkg{i % 7}/m{i:03}.py", SOURCE.format(i=i + 1000))
    for i in range(40, 44):
        (repo.root / f"pkg{i % 7}/m{i:03}.py").unlink()
    for i in range(320, 324):
        repo.write(f"pkg{i % 7}/m{i:03}.py", SOURCE.format(i=i))
    new = by_path(truth(repo.root))
    r = rq("--index", str(repo.root), env={"RQ_INDEX_KILL_AT": phase})
    assert (r.code, r.out) == (-signal.SIGKILL, ""), r
    held = sound_after_a_kill([old, new])
    moved = {p for p in new if new[p] != old.get(p)}
    if phase == "walked":
        assert held == old  # nothing written yet
    elif phase == "batch-written":
        # the deletions committed before the first batch; the batch itself did not
        assert held == {p: rows for p, rows in old.items() if p in new}
    elif phase == "batch-committed":
        assert any(held.get(p) == new[p] for p in moved)
    else:
        assert held == new
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "Traceback" not in r.err, r.err
    same_as_a_clean_index(repo.root, rq, tmp_path / "clean")
    q = rq("-q", "Gadget1007", cwd=repo.root)
    assert q.code == 0 and q.out.startswith("pkg0/m007.py:1  class  Gadget1007"), q
    assert "m042.py" not in rq("-q", "Gadget42", cwd=repo.root).out  # deleted
    assert "complete" in rq("--status").out and rq("--check").code == 0


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

    # after the pass's second batch committed: the triggers are off (a bulk pass), FTS and
    # the names hold its committed batches, the marker names the dead process
    killed_then_resumed(repo.root, "batch-committed:2", INDEXER, hand_on)
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


@pytest.mark.parametrize("kind", ["cold", "incremental"])
def test_drop_during_an_index_stops_it_cleanly(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path, kind: str
) -> None:
    repo = big_repo(make_repo)
    if kind == "incremental":
        assert rq("--index", str(repo.root)).code == 0
        for i in range(0, 320, 2):  # a bulk pass over an indexed repository
            repo.write(f"pkg{i % 7}/m{i:03}.py", SOURCE.format(i=i + 1000))
    # the pass stops itself once its first batch has committed, so the drop lands
    # between two batches of the same pass
    p = index_stopped_at(repo.root, "batch-committed")
    try:
        if stopped(p):
            d = rq("--drop", str(repo.root))
            assert d.code == 0 and d.err.startswith("rq: dropped local:"), d
    finally:
        out, err = resumed(p)
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
