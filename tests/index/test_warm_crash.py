"""A warmer killed with SIGKILL at any point of a sweep leaves a sound index, and the next
warmer finishes the job with exactly the rows of a clean index.

Real processes on a real git repository: `rq --warm ROOT` runs in its own process
group (its forked parse workers with it) and the whole group is killed with
SIGKILL at >= 50 random points. The points are events seen through a read-only
connection — the warmer took its lock, committed its k-th symbol row, dropped
the per-row triggers for a bulk pass, restored them, marked coverage complete,
recorded its verdict — or a random moment after the start (the import, the
claim, git, the walk, a transaction half written). The sweeps vary round by
round: a cold bulk pass over a dropped repository, a bulk pass over an indexed
one (hundreds of files rewritten, added, deleted; committed or left dirty), and
a small per-row pass over a few edited files.

After every kill, before anything repairs it: SQLite's integrity check and the
foreign keys pass, the FTS index agrees with the committed symbol rows (every
batch fills FTS for its own rows, even while a dead owner's suspension waits
for repair), and every file row holds exactly the symbols of one version of
that file that was once on disk (never half a file). The next warmer, started on
the same state, takes the dead holder's lock over and resumes; after a few
kills one runs to the end, and then the index holds exactly what git lists
(tests.index.conftest.truth), the same file and symbol rows and derived names
as a clean `rq --index` of the same tree in another RQ_HOME, FTS and the names
table whole, coverage complete, and no lock or suspension left behind.

Two engine defects this found (names left queued by a warmer killed before its
drain; commit times never read again after a drop) are fixed, and each is kept
as a deterministic test at the end: a warmer killed at that exact point.

RQ_CRASH_SEED=<n> replays a run's choices (the seed is in every assertion
message; process timing still varies); `-s` or `-v` prints the tally of kills by
sweep and phase.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rq_engine.index.parse import content_hash
from rq_engine.lang import registry
from rq_engine.store.db import connect
from tests.conftest import Repo, Run, rq_bin
from tests.index.conftest import Row, dump, fts_ok, truth
from tests.index.test_derived import derived_rows, derived_whole

# ~450 files of 40-100 symbols (~32k rows): a cold sweep takes ~0.5 s alone on a
# 2-core machine (~6 bulk commits), long enough for kills to land between and inside
# its transactions, short enough for ~65 warmer runs and their checks in about a minute.
N_FILES = 450
KILLS = 50  # at least this many warmers really killed
KILLS_PER_ROUND = 5  # then a warmer runs to the end and the index is compared
BULK_REWRITES = 280  # >= indexer.COLD_MIN_FILES with the additions: the bulk path
SMALL_REWRITES = 8  # a targeted per-row pass, parsed in-process
MAX_ROUNDS = 40  # a safety net: kills that never land fail the test, not hang it
RUN_TIMEOUT = 180.0  # s, one warmer on a loaded machine (a safety net, not a wait)
POLL = 0.003  # s between looks at the store while waiting for a kill point
ROUNDS = ("cold", "bulk", "small", "bulk-dirty", "small-commit")

LOCK = "warm_lock:"
SUSPENDED = "fts_suspended"
VERDICT = "verdict:"


def source(i: int, v: int, n: int) -> str:
    """Version `v` of file `i`: n classes with two methods each and n functions. Names
    shared across files (spin_k, stop_v) make the names table count users."""
    out = []
    for k in range(n):
        out.append(
            f"class Widget{i}v{v}k{k}:\n"
            f"    def spin_{k}(self, x):\n        return x + {k}\n\n"
            f"    def stop_v{v}(self):\n        pass\n\n\n"
            f"def helper_{i}_{v}_{k}(a, b):\n    return a * b\n\n\n"
        )
    return "".join(out)


@dataclass
class Tree:
    """The work tree as this test wrote it, and the symbol rows of every version of
    every file it ever wrote (by content hash): what a file row may hold."""

    repo: Repo
    rng: random.Random
    version: dict[str, int] = field(default_factory=dict)  # live path -> version
    live: dict[str, str] = field(default_factory=dict)  # live path -> content hash
    rows: dict[str, list[Row]] = field(default_factory=dict)  # content hash -> rows
    next_i: int = 0

    def _put(self, path: str, v: int) -> None:
        i = int(path.rsplit("mod", 1)[1].removesuffix(".py"))
        data = source(i, v, self.rng.randint(10, 25)).encode()
        self.repo.write(path, data.decode())
        syms = registry.plugin("python").extract(data)
        h = content_hash(data)
        self.rows[h] = sorted(
            (path, s.name, str(s.kind), s.line, s.end_line, s.parent) for s in syms
        )
        self.version[path] = v
        self.live[path] = h

    def add(self, n: int) -> None:
        for _ in range(n):
            i, self.next_i = self.next_i, self.next_i + 1
            self._put(f"pkg{i % 12}/mod{i:04}.py", 0)

    def rewrite(self, n: int) -> None:
        for path in self.rng.sample(sorted(self.version), n):
            self._put(path, self.version[path] + 1)

    def delete(self, n: int) -> None:
        for path in self.rng.sample(sorted(self.version), n):
            (self.repo.root / path).unlink()
            del self.version[path], self.live[path]

    def symbols(self, paths: list[str]) -> int:
        return sum(len(self.rows[self.live[p]]) for p in paths)

    def expected(self) -> list[Row]:
        """The rows of the tree as written (the plugin's own parse of each live file)."""
        return sorted(r for h in self.live.values() for r in self.rows[h])


@dataclass(frozen=True)
class Writer:
    """The process the kills land in (tests/index/test_index_crash.py shares these
    helpers for `rq --index`): its flag, whether it takes the warm lock (a kill
    point), and whether it is silent on stderr when it succeeds."""

    flag: str
    takes_lock: bool
    quiet: bool


WARMER = Writer("--warm", takes_lock=True, quiet=True)


@dataclass
class Look:
    """What a reader sees of the warmer's progress (committed state only)."""

    lock_pid: int | None
    suspended_pid: int | None
    top: int  # the highest symbol row id: grows as batches commit
    coverage: str | None
    verdict: str | None

    @staticmethod
    def take(conn: sqlite3.Connection) -> Look:
        lock, susp, top, cov, verdict = conn.execute(
            "SELECT (SELECT value FROM meta WHERE key LIKE ? || '%'),"
            " (SELECT value FROM meta WHERE key = ?),"
            " (SELECT coalesce(max(id), 0) FROM symbols),"
            " (SELECT status FROM coverage WHERE scope = 'full'),"
            " (SELECT value FROM meta WHERE key LIKE ? || '%')",
            (LOCK, SUSPENDED, VERDICT),
        ).fetchone()
        lock_pid = int(str(lock).split()[0]) if lock else None
        susp_pid = int(json.loads(susp).get("pid", 0)) if susp else None
        return Look(lock_pid, susp_pid, int(top), cov, verdict)


@dataclass
class Target:
    """A kill point: `hit(look, elapsed)` turns true once the warmer has reached it."""

    event: str
    hit: Callable[[Look, float], bool]


@dataclass
class Crash:
    """The whole experiment's state across rounds."""

    tree: Tree
    seed: int
    rng: random.Random
    tally: Counter[tuple[str, str]] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    kills: int = 0
    round: str = ""  # "round 3 (small)"
    points: list[str] = field(default_factory=list)  # this round's kills: point -> phase
    runs: int = 0
    took: dict[str, float] = field(default_factory=dict)  # sweep kind -> longest full run (s)
    log: list[str] = field(default_factory=list)  # what happened, for assertion messages

    def round_story(self) -> str:
        return f"{self.round}, kills at {', '.join(self.points) or 'none'}"

    def why(self) -> str:
        return f"seed {self.seed} (RQ_CRASH_SEED={self.seed} replays it); " + "; ".join(
            self.log[-12:]
        )


def group_gone(pgid: int) -> bool:
    """No live process (zombies aside) is left in the warmer's process group."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return False
    return True


def until(cond: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Wait for an observable condition (the timeout is only a safety net)."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.005)


def pick_target(
    c: Crash, kind: str, pid: int, at_start: Look, rows_left: int, writer: Writer = WARMER
) -> Target:
    """A random kill point for this run, from the events this sweep will pass through."""
    rng = c.rng
    bulk = kind in ("cold", "bulk", "bulk-dirty")
    events = ["delay"] * 3 + ["rows", "rows", "verdict"]
    if writer.takes_lock:
        events.append("locked")
    if bulk:
        events += ["rows", "rows", "suspended", "resumed"]
    if at_start.coverage != "complete":
        events.append("complete")
    event = rng.choice(events)
    if event == "delay":
        # anywhere in a run as long as the last uncut one: mostly the import, the
        # claim, git and the walk on a small sweep; any transaction on a big one
        t = rng.uniform(0, 1.3 * c.took.get(kind, 1.0))
        return Target(f"delay {t * 1000:.0f} ms", lambda look, el: el >= t)
    if event == "locked":
        return Target(event, lambda look, el: look.lock_pid == pid)
    if event == "rows":
        k = rng.randint(1, max(1, rows_left))
        return Target(f"rows +{k}", lambda look, el: look.top >= at_start.top + k)
    if event == "suspended":
        return Target(event, lambda look, el: look.suspended_pid == pid)
    if event == "resumed":
        seen = []

        def resumed(look: Look, el: float) -> bool:
            if look.suspended_pid == pid:
                seen.append(True)
            return bool(seen) and look.suspended_pid is None

        return Target(event, resumed)
    if event == "complete":
        return Target(event, lambda look, el: look.coverage == "complete")
    return Target(event, lambda look, el: look.verdict != at_start.verdict)


def phase(
    after: Look, pid: int, at_start: Look, saw_suspension: bool, writer: Writer = WARMER
) -> str:
    """Where the kill landed, judged from what the warmer had committed."""
    if after.suspended_pid == pid:
        return "bulk (triggers off)"
    if not writer.takes_lock:
        if after.verdict != at_start.verdict:
            return "settled, closing"
        if after.top != at_start.top or saw_suspension:
            return "writing / finishing"
        return "starting, nothing written"
    if after.verdict != at_start.verdict:
        return "settled, lock held" if after.lock_pid == pid else "lock released, closing"
    if after.lock_pid != pid:
        return "starting (before the lock)"
    if after.top != at_start.top or saw_suspension:
        return "writing / finishing"
    return "locked, nothing written"


AfterKill = Callable[["Crash", int], None]


def warm_once(
    c: Crash,
    kind: str,
    rows_left: int,
    *,
    kill: bool,
    writer: Writer = WARMER,
    after_kill: AfterKill | None = None,
) -> bool:
    """Start one real warmer (or `writer`); with `kill`, SIGKILL its process group at a
    random point. True if it was killed, False if it ran to the end (asserted clean).
    `after_kill(c, pid)` runs once the state the dead process left has been checked."""
    env = {**os.environ, "RQ_WARM_BUDGET_MS": "600000"}  # never stopped by its budget
    reader = connect(readonly=True)
    at_start = Look.take(reader)
    proc = subprocess.Popen(
        [*rq_bin(), writer.flag, str(c.tree.repo.root)],
        env=env,
        start_new_session=True,  # its forked parse workers share its process group
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    c.runs += 1
    t0 = time.monotonic()
    try:
        target = pick_target(c, kind, proc.pid, at_start, rows_left, writer) if kill else None
        saw_suspension = False
        while proc.poll() is None:
            el = time.monotonic() - t0
            assert el < RUN_TIMEOUT, f"warmer ran past {RUN_TIMEOUT} s: {c.why()}"
            if target is not None:
                look = Look.take(reader)
                saw_suspension |= look.suspended_pid == proc.pid
                if target.hit(look, el):
                    os.killpg(proc.pid, signal.SIGKILL)
                    break
            time.sleep(POLL)
        _, err = proc.communicate(timeout=RUN_TIMEOUT)
        until(lambda: group_gone(proc.pid), "the killed warmer's workers to go")
        took = time.monotonic() - t0
    finally:
        reader.close()
        if proc.poll() is None:  # a failed assertion above: leave no warmer behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    if proc.returncode == -signal.SIGKILL:
        assert target is not None
        c.log.append(f"{kind}: killed at '{target.event}'")
        after = check_after_kill(c)
        where = phase(after, proc.pid, at_start, saw_suspension, writer)
        c.log[-1] += f" -> {where}"
        c.points.append(f"'{target.event}' -> {where}")
        c.tally[(kind, where)] += 1
        c.events[target.event.split()[0]] += 1
        c.kills += 1
        if after_kill is not None:
            after_kill(c, proc.pid)
        return True
    c.log.append(f"{kind}: ran to the end in {took:.2f} s")
    ok = not err if writer.quiet else err.startswith(b"rq: indexed ") and b"Traceback" not in err
    assert proc.returncode == 0 and ok, (
        f"{writer.flag} failed: {proc.returncode} {err!r}: {c.why()}"
    )
    c.took[kind] = max(took, c.took.get(kind, 0.0))
    return False


def check_after_kill(c: Crash) -> Look:
    """What must hold the moment the warmer died, before any pass repairs anything.
    Returns what the dead warmer had committed."""
    conn = connect()  # read-write, as the next process opens it (the WAL is recovered)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)], c.why()
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == [], c.why()
        # Every batch fills FTS for its own rows in its own transaction, so FTS agrees
        # with the committed symbols even while a dead owner's suspension is pending.
        conn.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
        # Never half a file: each file row holds all the rows of a version once on disk.
        by_path: dict[str, list[Row]] = {}
        for row in dump(conn):
            by_path.setdefault(row[0], []).append(row)
        for path, h in conn.execute("SELECT path, content_hash FROM files"):
            assert h in c.tree.rows, f"{path}: unknown content {h}: {c.why()}"
            want = [(path, *r[1:]) for r in c.tree.rows[h]]
            assert by_path.get(path, []) == want, f"{path}: rows of no version: {c.why()}"
        return Look.take(conn)
    finally:
        conn.close()


def files_rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return sorted(
        conn.execute("SELECT path, language, mtime, size, content_hash, commit_time FROM files")
    )


def check_complete(c: Crash, rq: Callable[..., Run], clean_home: Path) -> None:
    """After a warmer ran to the end: exactly a clean index of the same tree."""
    root = c.tree.repo.root
    shutil.rmtree(clean_home, ignore_errors=True)
    r = rq("--index", str(root), env={"RQ_HOME": str(clean_home)})
    assert r.code == 0, r.err
    clean = connect(clean_home / "index.db")
    conn = connect()
    try:
        rows = dump(conn)
        assert rows == c.tree.expected(), f"rows differ from the work tree: {c.why()}"
        assert rows == dump(clean), c.why()
        assert files_rows(conn) == files_rows(clean), c.why()  # commit times included
        fts_ok(conn)
        assert conn.execute("SELECT status FROM coverage").fetchall() == [("complete",)]
        left = conn.execute(
            "SELECT key FROM meta WHERE key LIKE ? || '%' OR key LIKE 'fts_%'", (LOCK,)
        ).fetchall()
        assert left == [], f"left behind: {left}: {c.why()}"
        want = [n[1:] for n in derived_rows(clean)]
        queued = conn.execute("SELECT count(*) FROM names_pending").fetchone()[0]
        assert queued == 0, f"{queued} names left queued: {c.why()}"
        names = [n[1:] for n in derived_rows(conn)]
        extra = sorted(set(names) ^ set(want))[:6]
        assert names == want, f"names {extra}: {c.why()}"
        derived_whole(conn)
    finally:
        conn.close()
        clean.close()


def top() -> int:
    conn = connect(readonly=True)
    try:
        return Look.take(conn).top
    finally:
        conn.close()


def change(c: Crash, kind: str, rq: Callable[..., Run]) -> int:
    """Move the tree (or drop the index) for this round; the symbol rows to write."""
    tree = c.tree
    before = dict(tree.version)
    if kind == "cold":
        if tree.version:
            assert rq("--drop", str(tree.repo.root)).code == 0
        else:
            tree.add(N_FILES)
            tree.repo.commit("init")
        return tree.symbols(sorted(tree.version))
    if kind.startswith("bulk"):
        tree.rewrite(BULK_REWRITES)
        tree.delete(10)
        tree.add(10)
    else:
        tree.rewrite(SMALL_REWRITES)
        tree.delete(1)
        tree.add(2)
    if kind in ("bulk", "small-commit"):
        tree.repo.commit(kind)
    moved = [p for p, v in tree.version.items() if before.get(p) != v]
    return tree.symbols(moved)


def test_kill_9_at_random_points_of_warm_sweeps(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kill_rounds(make_repo, rq, tmp_path, request, capsys, WARMER)


def kill_rounds(
    make_repo: Callable[..., Repo],
    rq: Callable[..., Run],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
    writer: Writer,
    after_kill: AfterKill | None = None,
) -> Crash:
    """Rounds of changes to the tree, each swept by up to KILLS_PER_ROUND killed runs of
    `writer` and one run to the end, compared with a clean index; until KILLS kills."""
    seed = int(os.environ.get("RQ_CRASH_SEED") or random.SystemRandom().randrange(2**31))
    rng = random.Random(seed)
    c = Crash(Tree(make_repo(commit=False), rng), seed, rng)
    connect().close()  # the store exists before the first reader opens it read-only
    rounds = 0
    while c.kills < KILLS:
        assert rounds < MAX_ROUNDS, f"only {c.kills} kills in {rounds} rounds: {c.why()}"
        kind = ROUNDS[rounds % len(ROUNDS)]
        rounds += 1
        c.round, c.points = f"round {rounds} ({kind})", []
        rows = change(c, kind, rq)
        top0 = top()
        finished = False
        for _ in range(KILLS_PER_ROUND):
            left = rows - max(0, top() - top0)  # roughly: rolled back ids are reused
            if not warm_once(c, kind, left, kill=True, writer=writer, after_kill=after_kill):
                finished = True  # it ended before its kill point: that run is the resume
                break
        if not finished:
            assert not warm_once(c, kind, 0, kill=False, writer=writer)
        check_complete(c, rq, tmp_path / "clean")
    conn = connect()
    try:  # the test's own model of the tree is what git lists, parsed independently
        assert dump(conn) == truth(c.tree.repo.root), c.why()
    finally:
        conn.close()
    runs = f"{writer.flag} runs"
    report = [f"seed {seed}: {c.kills} kills in {c.runs} {runs} over {rounds} rounds"]
    report += [f"  {kind:13} {where:28} {n}" for (kind, where), n in sorted(c.tally.items())]
    report += [f"  kill point {e:10} {n}" for e, n in sorted(c.events.items())]
    if request.config.get_verbosity() > 0:
        with capsys.disabled():
            print("\n" + "\n".join(report))
    else:
        print("\n".join(report))
    return c


# --- the defects the crash test found, each reduced to one deterministic kill ---------


def killed_then_resumed(
    root: Path,
    kill_at: str,
    writer: Writer = WARMER,
    between: Callable[[], None] | None = None,
) -> None:
    """A warmer (or `writer`) killed at the named point `kill_at` of its pass
    (RQ_INDEX_KILL_AT, rq_engine/index/crashpoints.py), then — after `between`, if
    given — the next one, run to the end."""
    warm = [*rq_bin(), writer.flag, str(root)]
    env = {**os.environ, "RQ_INDEX_KILL_AT": kill_at}
    p = subprocess.run(warm, env=env, capture_output=True, timeout=RUN_TIMEOUT)
    assert p.returncode == -signal.SIGKILL, p.stderr
    if between is not None:
        between()
    p = subprocess.run(warm, capture_output=True, timeout=RUN_TIMEOUT)
    assert p.returncode == 0, p.stderr


def queued_not_named(name: str) -> None:
    """The dead writer left `name` queued in names_pending, not yet in `names`."""
    conn = connect()
    try:
        queued = {r[0] for r in conn.execute("SELECT name FROM names_pending")}
        assert name in queued and name not in {n[1] for n in derived_rows(conn)}, queued
    finally:
        conn.close()


def test_a_warmer_killed_before_the_names_drain_leaves_no_name_behind(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"a.py": "def existing_function():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    repo.write("b.py", "def brand_new_helper():\n    pass\n")  # a small per-row pass
    # the batch committed the names it queued; they have not reached `names` yet
    killed_then_resumed(
        repo.root, "batch-committed", between=lambda: queued_not_named("brand_new_helper")
    )
    conn = connect()
    try:
        assert dump(conn) == truth(repo.root)  # the symbols are all there...
        queued = conn.execute("SELECT name FROM names_pending").fetchall()
        names = {n[1] for n in derived_rows(conn)}
    finally:
        conn.close()
    # ...and the next warmer drained the dead one's queue into `names`, which prefix,
    # skeleton, first-letter and typo retrieval read (`brand_new_hel`, `brand_new_helpr`)
    assert queued == [] and "brand_new_helper" in names, (queued, names)
    assert rq("-q", "brand_new_helpr", cwd=repo.root).code == 0


def coverage_is(state: str) -> None:
    conn = connect()
    try:
        assert conn.execute("SELECT status FROM coverage").fetchall() == [(state,)]
    finally:
        conn.close()


def test_a_warmer_killed_before_settling_after_a_drop_keeps_commit_times(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"a.py": "def existing_function():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    conn = connect()
    assert conn.execute("SELECT commit_time FROM files").fetchone()[0] is not None
    conn.close()
    assert rq("--drop", str(repo.root)).code == 0  # forgets the verdict and tracked rows too
    # as the warmer starts to record its verdict: its sweep committed coverage 'complete'
    killed_then_resumed(repo.root, "verdict", between=lambda: coverage_is("complete"))
    conn = connect()
    try:
        assert conn.execute("SELECT status FROM coverage").fetchall() == [("complete",)]
        times = conn.execute("SELECT path, commit_time FROM files").fetchall()
    finally:
        conn.close()
    # as a clean index has: a.py's commit time (the recency feature reads it)
    assert times[0][1] is not None, times
