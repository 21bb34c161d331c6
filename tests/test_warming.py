"""The index keeps itself true with no daemon: real `rq` processes on real git repositories.

Every change a developer makes — an edit, a new file, a deletion, a rename, a
checkout, a discarded edit — is seen by the next query with no `rq --index`; a
first query in a never-indexed repository answers correctly; a miss is only
definitive when the index is complete; the detached warmer runs at most once
per repository and never on a fresh hit. Processes are observed from outside:
a `git` wrapper on PATH and a sitecustomize that logs every `rq --warm` start.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import Repo, Run

SRC = {
    "app/models.py": "class Order:\n    def total(self):\n        return 1\n",
    "app/views.py": "def order_view(request):\n    pass\n",
    "lib/util.py": "def slugify(text):\n    return text\n",
}


def until(cond: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Wait for an observable condition (the timeout is only a safety net)."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


@dataclass
class Spy:
    """Environment for a detached-warmer run, and what it observed."""

    env: dict[str, str]
    log: Path

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def warms(self) -> list[int]:
        return [int(x.split()[1]) for x in self.lines() if x.startswith("warm ")]

    def gits(self) -> list[str]:
        return [x for x in self.lines() if x.startswith("git ")]

    def clear(self) -> None:
        self.log.write_text("")

    def running(self) -> list[int]:
        """Warmers started under this spy's environment that are still alive. (A warmer
        exists from its spawn on: posix_spawn returns once the child has exec'd.)"""
        mark = self.env["PYTHONPATH"].encode()
        alive = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
                with open(f"/proc/{d}/environ", "rb") as f:
                    env = f.read()
                with open(f"/proc/{d}/stat") as f:
                    zombie = f.read().split(") ", 1)[1].startswith("Z")
            except OSError:
                continue
            if b"--warm" in argv and mark in env and not zombie:
                alive.append(int(d))
        return alive

    def settled(self) -> None:
        """Wait until every warmer started under this spy has exited."""
        until(lambda: not self.running(), "the warmers to finish")


@pytest.fixture
def spy(tmp_path: Path) -> Spy:
    return make_spy(tmp_path)


def make_spy(tmp_path: Path) -> Spy:
    """A `git` wrapper on PATH that logs each call, and a sitecustomize that logs each
    `rq --warm` start (with its open descriptors), both into one log."""
    d = tmp_path / "spy"
    (d / "bin").mkdir(parents=True)
    log = d / "log"
    (d / "sitecustomize.py").write_text(
        "import os, sys\n"
        "if '--warm' in sys.argv:\n"
        "    fds = sorted(int(x) for x in os.listdir('/proc/self/fd'))\n"
        f"    with open({str(log)!r}, 'a') as f:\n"
        "        f.write(f'warm {os.getpid()} fds {fds}\\n')\n"
    )
    git = d / "bin" / "git"
    git.write_text(f'#!/bin/sh\necho "git $*" >> {log}\nexec {shutil.which("git")} "$@"\n')
    git.chmod(git.stat().st_mode | stat.S_IEXEC)
    env = {
        "PYTHONPATH": str(d),
        "PATH": f"{d / 'bin'}:{os.environ['PATH']}",
        "RQ_WARM_DETACH": "1",
    }
    return Spy(env, log)


def locs(r: Run) -> list[str]:
    return [line.split()[0] for line in r.out.splitlines()]


def db() -> sqlite3.Connection:
    from rq_engine.store.db import connect

    return connect()


# --- the two reproductions of the issue -------------------------------------------


def test_an_appended_definition_is_found_without_reindexing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    with open(repo.root / "lib/util.py", "a") as f:
        f.write("\ndef brand_new_helper_xyz():\n    pass\n")
    r = rq("-q", "brand_new_helper_xyz", cwd=repo.root)
    assert (r.code, locs(r)) == (0, ["lib/util.py:4"]), r.err


def test_a_removed_folder_is_never_shown(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**SRC, "spec/example_group.py": "class ExampleGroup:\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    assert locs(rq("-q", "ExampleGroup", cwd=repo.root)) == ["spec/example_group.py:1"]
    repo.git("rm", "-rq", "spec")
    assert not (repo.root / "spec").exists()
    r = rq("-q", "ExampleGroup", cwd=repo.root)
    assert (r.code, r.out) == (1, "")  # a definitive miss: the index knows the folder is gone


# --- every kind of change, seen by the next query ------------------------------------


@pytest.fixture
def indexed(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    assert locs(rq("-q", "Order", cwd=repo.root))[0] == "app/models.py:1"
    return repo


def test_a_new_file(indexed: Repo, rq: Callable[..., Run]) -> None:
    indexed.write("app/refunds.py", "class RefundProcessor:\n    pass\n")
    r = rq("-q", "RefundProcessor", cwd=indexed.root)
    assert locs(r) == ["app/refunds.py:1"]


def test_a_deleted_file(indexed: Repo, rq: Callable[..., Run]) -> None:
    (indexed.root / "lib/util.py").unlink()
    r = rq("-q", "slugify", cwd=indexed.root)
    assert (r.code, r.out) == (1, "")


def test_a_definition_moved_by_twenty_lines(indexed: Repo, rq: Callable[..., Run]) -> None:
    p = indexed.root / "app/models.py"
    p.write_text("#\n" * 20 + p.read_text())
    r = rq("-q", "Order", cwd=indexed.root)
    assert locs(r)[0] == "app/models.py:21"
    assert "app/models.py:22" in locs(rq("-q", "Order.total", cwd=indexed.root))


def test_a_renamed_file(indexed: Repo, rq: Callable[..., Run]) -> None:
    indexed.git("mv", "lib/util.py", "lib/text.py")
    r = rq("-q", "slugify", cwd=indexed.root)
    assert locs(r) == ["lib/text.py:1"]


def test_a_checkout_of_another_branch(indexed: Repo, rq: Callable[..., Run]) -> None:
    indexed.git("checkout", "-q", "-b", "feature")
    indexed.write("app/models.py", "class Invoice:\n    pass\n")
    indexed.commit("invoice")
    indexed.git("checkout", "-q", "main")
    assert locs(rq("-q", "Order", cwd=indexed.root))[0] == "app/models.py:1"
    indexed.git("checkout", "-q", "feature")
    assert locs(rq("-q", "Invoice", cwd=indexed.root)) == ["app/models.py:1"]
    r = rq("-q", "Order", cwd=indexed.root)
    assert "app/models.py:1" not in locs(r)  # the class is gone on this branch


def test_a_discarded_edit(indexed: Repo, rq: Callable[..., Run]) -> None:
    p = indexed.root / "lib/util.py"
    p.write_text("def slugify_v2(text):\n    return text\n")
    assert locs(rq("-q", "slugify_v2", cwd=indexed.root)) == ["lib/util.py:1"]
    indexed.git("checkout", "--", "lib/util.py")  # clean again: status no longer names it
    r = rq("-q", "slugify_v2", cwd=indexed.root)
    assert (r.code, r.out) == (1, "")
    assert locs(rq("-q", "slugify", cwd=indexed.root)) == ["lib/util.py:1"]


# --- first queries, waiting, and what programs are told --------------------------------


def test_a_first_query_in_a_never_indexed_repository_answers(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    files = {f"pkg{i % 7}/mod{i}.py": f"def helper_{i}():\n    pass\n" for i in range(300)}
    repo = make_repo({**files, "pkg3/deep/target.py": "class NeedleInTheTree:\n    pass\n"})
    r = rq("-q", "--json", "NeedleInTheTree", cwd=repo.root)
    doc = json.loads(r.out)
    assert r.code == 0 and doc["results"][0]["path"] == "pkg3/deep/target.py"
    assert doc["coverage"] in ("warming", "complete")
    # a prefix answer is whole too: every file holding the leaf was parsed first
    r = rq("-q", "helper_29", cwd=repo.root)
    assert locs(r)[0] == "pkg1/mod29.py:1"


def test_no_wait_on_a_cold_repository_exits_2_and_leaves_the_warm_behind(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    r = rq("-q", "--no-wait", "Order", cwd=repo.root)
    assert (r.code, r.out) == (2, "")
    assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: no match for 'Order' yet")
    # (RQ_WARM_DETACH=0 here: the hand-off ran in that process, after the answer)
    r = rq("-q", "--no-wait", "Order", cwd=repo.root)
    assert (r.code, locs(r)[0]) == (0, "app/models.py:1")


def test_wait_durations_and_bad_ones(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    for dur in ("50ms", "2s", "1m", "1500"):
        r = rq("-q", "--wait", dur, "Order", cwd=repo.root)
        assert r.code == 0, (dur, r.err)
    for bad in ("soon", "-1s", "1h"):
        r = rq("-q", f"--wait={bad}", "Order", cwd=repo.root)
        assert r.code == 64 and r.err.startswith("rq: --wait") and len(r.err.splitlines()) == 1
    r = rq("-q", "--wait", "1s", "--no-wait", "Order", cwd=repo.root)
    assert r.code == 64


def test_ndjson_and_json_carry_the_coverage_of_the_answer(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    seed = rq("--index", str(repo.root), "--path", "app")
    assert seed.code == 0
    r = rq("-q", "--no-wait", "--ndjson", "Order", cwd=repo.root)
    assert {json.loads(x)["coverage"] for x in r.out.splitlines()} == {"warming"}
    r = rq("-q", "--json", "Order", cwd=repo.root)  # may wait: warms the rest first
    assert json.loads(r.out)["coverage"] == "complete"


# --- the detached warmer -------------------------------------------------------------------


def test_a_burst_of_queries_starts_at_most_one_warmer(
    make_repo: Callable[..., Repo], spy: Spy
) -> None:
    import subprocess

    from tests.conftest import rq_bin

    repo = make_repo(SRC)
    env = {**os.environ, **spy.env}
    subprocess.run([*rq_bin(), "--index", str(repo.root)], env=env, capture_output=True)
    spy.settled()
    # staging moves the git-state stamp: no hit may trust the last verdict, so each
    # one of the burst would hand the "did anything move?" question to a warmer
    repo.write("NOTES.md", "notes\n")
    repo.git("add", "NOTES.md")
    spy.clear()
    procs = [
        subprocess.Popen(
            [*rq_bin(), "-q", "Order"],
            cwd=repo.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(10)
    ]
    for p in procs:
        assert p.wait(60) == 0
    spy.settled()
    # one of them had to ask (the stamp moved), and no second one followed
    assert len(spy.warms()) == 1, spy.lines()


def test_a_hit_inside_the_recheck_window_forks_nothing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root), env=spy.env).code == 0
    spy.settled()
    spy.clear()
    for q in ("Order", "order_view", "slgify"):  # exact, prefix, typo: all hits
        assert rq("-q", q, cwd=repo.root, env=spy.env).code == 0
    assert spy.lines() == []  # no git, no warmer


def test_outside_the_window_a_hit_hands_the_check_to_one_warmer(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root), env=spy.env).code == 0
    spy.clear()
    env = {**spy.env, "RQ_WARM_RECHECK_MS": "0"}
    r = rq("-q", "Order", cwd=repo.root, env=env)
    assert r.code == 0
    spy.settled()
    assert len(spy.warms()) == 1
    # the warmer asked git once whether anything moved, and that was all
    assert [g for g in spy.gits() if " status " in g] != []


@pytest.mark.parametrize(
    "miss", [["-q", "--no-wait", "Zebra"], ["--no-wait", "--text", "zebra"]], ids=["q", "text"]
)
def test_no_wait_misses_after_an_edit_inside_the_window_end_once_a_warmer_caught_up(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy, miss: list[str]
) -> None:
    """A `--no-wait` miss whose git check finds an unstaged edit says "not yet" (2) and
    leaves the catch-up to a warmer. The verdict that nothing moved was just proved
    wrong, so the warmer must start even inside the recheck window; once it has caught
    up, the next miss is a plain, definitive one (1)."""
    repo = make_repo(SRC)
    window = {**spy.env, "RQ_WARM_RECHECK_MS": "3600000"}  # the whole test inside it
    assert rq("--index", str(repo.root), env=window).code == 0
    assert rq(*miss, cwd=repo.root, env=window).code == 1
    spy.settled()
    spy.clear()
    (repo.root / "lib/util.py").write_text("def slugify(text):\n    return text.lower()\n")
    r = rq(*miss, cwd=repo.root, env=window)
    assert (r.code, r.out) == (2, ""), r.err
    assert "changed since it was indexed" in r.err
    spy.settled()
    assert len(spy.warms()) == 1, spy.lines()  # handed off, and taken up
    r = rq(*miss, cwd=repo.root, env=window)
    assert r.code == 1 and "changed" not in r.err, r.err
    spy.settled()
    assert len(spy.warms()) == 1, spy.lines()  # nothing left to do: no second warmer


def test_the_warmer_finishes_a_seeded_repository(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root), "--path", "app", env=spy.env).code == 0
    r = rq("-q", "--no-wait", "slugify", cwd=repo.root, env=spy.env)
    assert r.code == 2  # lib/ is not indexed yet; the warmer takes it from here
    spy.settled()
    assert len(spy.warms()) == 1
    r = rq("-q", "--no-wait", "slugify", cwd=repo.root, env=spy.env)
    assert (r.code, locs(r)) == (0, ["lib/util.py:1"])
    assert "complete" in rq("--status").out


def test_commit_times_are_captured_when_a_sweep_indexes(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    conn = db()
    times = dict(conn.execute("SELECT path, commit_time FROM files"))
    conn.close()
    now = time.time()
    assert set(times) == set(SRC)
    assert all(t is not None and now - 3600 < t <= now + 60 for t in times.values()), times


# --- moved repositories, Ctrl-C, usage -------------------------------------------------------


def test_a_moved_repository_heals_itself(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    repo = make_repo(SRC, remote="https://github.com/acme/shop.git")
    assert rq("--index", str(repo.root)).code == 0
    moved = tmp_path / "elsewhere" / "shop"
    moved.parent.mkdir()
    shutil.move(repo.root, moved)
    r = rq("-q", "Order", cwd=moved)
    assert (r.code, locs(r)[0]) == (0, "app/models.py:1")
    status = rq("--status").out
    assert f"  {moved}  main" in status
    assert f"  {repo.root}  " not in status  # the old checkout was pruned
    assert "1 repositories, 1 checkouts" in status


def test_ctrl_c_while_waiting_prints_what_was_found(make_repo: Callable[..., Repo]) -> None:
    import signal

    from rq_engine.store.paths import index_db_path
    from tests.conftest import rq_bin
    from tests.tui.ptyproc import PtyProcess

    # ~4 s of parsing, so the interrupt lands mid-warm; a typo never matches literally,
    # so the query waits for the whole sweep
    body = "".join(f"def f{k}():\n    pass\n\n" for k in range(30))
    body += "".join(f"x{k} = [{', '.join(map(str, range(60)))}]\n" for k in range(200))
    files = {f"p{i // 100}/m{i}.py": body for i in range(700)}
    repo = make_repo({**files, "a/widget.py": "class WidgetFactory:\n    pass\n"})
    p = PtyProcess([*rq_bin(), "-q", "WidgetFactroy"], cwd=repo.root, env=dict(os.environ))
    p.expect("indexing", timeout=60)  # the heads-up: a person is waiting

    def committed() -> bool:  # the one near miss is in the index (read-only look)
        try:
            conn = sqlite3.connect(f"file:{index_db_path()}?mode=ro", uri=True)
            try:
                return bool(
                    conn.execute("SELECT 1 FROM files WHERE path = 'a/widget.py'").fetchone()
                )
            finally:
                conn.close()
        except sqlite3.Error:
            return False

    until(committed, "the first batches to commit")
    assert p.proc.poll() is None, "the warm ended before it could be interrupted"
    p.proc.send_signal(signal.SIGINT)  # Ctrl-C (the pty is not its controlling terminal)
    code = p.wait(timeout=60)
    text = p.text
    assert code == 130
    assert "a/widget.py:1" in text and "WidgetFactory" in text


def test_usage_counts_hits_misses_and_warming_apart(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("-q", "--no-wait", "Order", cwd=repo.root).code == 2  # warming
    assert rq("-q", "Order", cwd=repo.root).code == 0  # hit
    assert rq("-q", "Zebra", cwd=repo.root).code == 1  # miss
    assert rq("-q", "--json", "Order", cwd=repo.root).code == 0
    assert rq("--text", "order view", cwd=repo.root).code == 0
    rows = json.loads(rq("--usage", "--json").out)
    cli = [r for r in rows if r["source"] == "cli"]
    total = {k: sum(r[k] for r in cli) for k in ("searches", "misses", "warming", "on_complete")}
    assert total == {"searches": 4, "misses": 1, "warming": 1, "on_complete": 3}
    assert {r["flags"] for r in cli} >= {"json", "no-wait", ""}
    assert [(r["source"], r["searches"]) for r in rows if r["source"] != "cli"] == [("text", 1)]


# --- rq --text reads the same freshness rules ------------------------------------------------


def test_text_queries_warm_a_never_indexed_repository_and_see_edits(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    r = rq("--text", "order view", "--limit", "1", cwd=repo.root)
    assert (r.code, locs(r)) == (0, ["app/views.py:1"]), r.err
    p = repo.root / "app/views.py"
    p.write_text("#\n" * 20 + p.read_text())
    r = rq("--text", "order view", "--limit", "1", cwd=repo.root)
    assert locs(r) == ["app/views.py:21"]
    r = rq("--text", "order view", "--no-wait", "--json", cwd=repo.root)
    assert json.loads(r.out)["results"][0]["line"] == 21


# --- what a review's fault probe found, kept as regressions ------------------------------


def filler(n: int) -> dict[str, str]:
    """Files that hold nothing a test asks for: they make a sweep take its time."""
    return {f"fill/f{i:04}.py": f"def filler_{i}():\n    return {i}\n" for i in range(n)}


def test_an_added_definition_beside_a_near_namesake_is_seen(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**SRC, "lib/routes.py": "def route_missing():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    repo.write("lib/extra.py", "def route_missing_x():\n    pass\n")
    # outside the recheck window (0 ms here): an answer without the exact name asks git
    env = {"RQ_WARM_RECHECK_MS": "0"}
    r = rq("-q", "route_missing_x", cwd=repo.root, env=env)
    assert locs(r)[0] == "lib/extra.py:1", r.out


def test_a_renamed_file_beside_namesakes_is_seen(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**SRC, "tests/test_order.py": "class OrderTests:\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    repo.git("mv", "app/models.py", "app/orders.py")
    r = rq("-q", "Order", cwd=repo.root)  # the shown file is gone: the tree moved
    assert locs(r)[0] == "app/orders.py:1", r.out


def test_many_files_put_back_by_a_stash_are_never_shown(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(filler(80))
    assert rq("--index", str(repo.root)).code == 0
    for i in range(60):
        p = repo.root / f"fill/f{i:04}.py"
        p.write_text("def bulk_added_fn():\n    pass\n" + p.read_text())
    assert rq("-q", "--limit", "5", "bulk_added_fn", cwd=repo.root).code == 0
    repo.git("stash", "-q")
    r = rq("-q", "--limit", "5", "bulk_added_fn", cwd=repo.root)
    assert (r.code, r.out) == (1, "")


def test_a_deleted_then_restored_file_comes_back(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    (repo.root / "lib/util.py").unlink()
    assert rq("-q", "slugify", cwd=repo.root).code == 1  # the index takes the deletion in
    repo.git("checkout", "--", "lib/util.py")  # clean again: status names nothing
    r = rq("-q", "slugify", cwd=repo.root)
    assert (r.code, locs(r)) == (0, ["lib/util.py:1"])


def test_a_file_rq_skips_is_not_a_change_forever(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    env = {"RQ_MAX_FILE_BYTES": "2000"}
    assert rq("--index", str(repo.root), env=env).code == 0
    repo.write("generated.py", "# generated\n" * 400)  # over the limit: skipped
    assert rq("-q", "Zebra", cwd=repo.root, env=env).code == 1  # asks git, takes it in
    r = rq("-q", "--no-wait", "Zebra", cwd=repo.root, env=env)
    assert r.code == 1, r.err  # nothing moved since: definitive without waiting


def test_all_repos_is_not_definitive_about_a_repository_never_indexed(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    r = rq("-q", "--all-repos", "Order", cwd=repo.root)
    assert r.code == 2 and "not indexed" in r.err
    # (that answer handed the repository to the warmer: in-process here)
    r = rq("-q", "--all-repos", "--json", "Order", cwd=repo.root)
    doc = json.loads(r.out)
    assert r.code == 0 and doc["coverage"] == "complete"
    assert rq("-q", "--all-repos", "Zebra", cwd=repo.root).code == 1


def test_a_catch_up_cut_short_by_the_wait_budget_is_not_a_definitive_miss(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(filler(120))
    assert rq("--index", str(repo.root)).code == 0
    for i in range(100):
        (repo.root / f"fill/f{i:04}.py").write_text(f"def changed_{i}():\n    pass\n")
    r = rq("-q", "--wait", "1ms", "Zebra", cwd=repo.root)
    assert r.code == 2 and "still being indexed" in r.err


def test_a_query_takes_over_from_a_warmer_that_stops_short(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy
) -> None:
    import subprocess

    from tests.conftest import rq_bin

    repo = make_repo(filler(600))
    env = {**os.environ, **spy.env, "RQ_WARM_BUDGET_MS": "200"}
    warmer = subprocess.Popen(
        [*rq_bin(), "--warm", str(repo.root)], env=env, stdin=subprocess.DEVNULL
    )
    try:
        # the query sees the warmer's lock, watches it stop at its budget, and finishes
        # the sweep itself: a definitive miss within its own (much longer) budget
        r = rq("-q", "--wait", "60s", "zzqtypoq", cwd=repo.root, env=spy.env)
    finally:
        warmer.wait(60)
    assert r.code == 1, r.err
    assert "complete" in rq("--status").out


def test_the_warmer_inherits_no_descriptor_but_stdio(
    make_repo: Callable[..., Repo], spy: Spy
) -> None:
    import subprocess

    from tests.conftest import rq_bin

    repo = make_repo(SRC)
    env = {**os.environ, **spy.env}
    cmd = " ".join([*rq_bin(), "-q", "--no-wait", "Order"])
    # fd 5 is a pipe the reader waits on: a warmer holding it would keep `cat` open
    p = subprocess.run(
        ["sh", "-c", f"{{ {cmd} 5>&1 >/dev/null 2>&1; }} | cat"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0
    spy.settled()
    starts = [x for x in spy.lines() if x.startswith("warm ")]
    assert len(starts) == 1 and starts[0].endswith("fds [0, 1, 2, 3]"), starts


def _which_rq_warms(spy: Spy) -> None:
    """Have the spy also log, at exit, which `rq_engine` a warmer imported."""
    with open(spy.log.parent / "sitecustomize.py", "a") as f:
        f.write(
            "if '--warm' in sys.argv:\n"
            "    import atexit\n"
            "    def _which():\n"
            f"        with open({str(spy.log)!r}, 'a') as f:\n"
            "            m = sys.modules.get('rq_engine')\n"
            "            f.write(f'ran {getattr(m, \"__file__\", None)}\\n')\n"
            "    atexit.register(_which)\n"
        )


def test_a_warmer_runs_this_rq_not_a_package_of_that_name_in_the_repository(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy
) -> None:
    """Searching inside a checkout of rq itself (or any project with an `rq_engine`
    folder) must not hand the index to that folder's code."""
    import rq_engine

    impostor = "import sys\nopen(sys.argv[-1] + '/IMPOSTOR', 'w').close()\n"
    repo = make_repo({**SRC, "rq_engine/__init__.py": "", "rq_engine/__main__.py": impostor})
    _which_rq_warms(spy)
    r = rq("-q", "--no-wait", "Order", cwd=repo.root, env=spy.env)
    assert r.code == 2, r.err  # cold: the warm is left behind
    spy.settled()
    assert not (repo.root / "IMPOSTOR").exists()
    assert [x for x in spy.lines() if x.startswith("ran ")] == [f"ran {rq_engine.__file__}"]
    assert rq("-q", "Order", cwd=repo.root).out.startswith("app/models.py:1")


def test_a_warmer_runs_the_rq_of_a_source_tree_that_started_it(
    make_repo: Callable[..., Repo], spy: Spy, tmp_path: Path
) -> None:
    """An rq started from a source tree by adding it to sys.path (not installed):
    its warmer imports that tree, not whichever rq is installed."""
    import subprocess
    import sys

    import rq_engine

    tree = tmp_path / "tree"
    shutil.copytree(
        Path(rq_engine.__file__).parent,
        tree / "rq_engine",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    repo = make_repo(SRC)
    _which_rq_warms(spy)
    start = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); sys.argv[0] = 'rq'; "
        "from rq_engine.main import entry; entry()"
    )
    p = subprocess.run(
        [sys.executable, "-P", "-c", start, "-q", "--no-wait", "Order"],
        cwd=repo.root,
        env={**os.environ, **spy.env},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr
    spy.settled()
    ran = [x for x in spy.lines() if x.startswith("ran ")]
    assert ran == [f"ran {tree / 'rq_engine' / '__init__.py'}"], spy.lines()


def test_a_subdirectory_of_an_indexed_plain_directory_belongs_to_it(
    rq: Callable[..., Run], tmp_path: Path
) -> None:
    top = tmp_path / "plain"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "a.py").write_text("class Inside:\n    pass\n")
    (top / "b.py").write_text("class Outside:\n    pass\n")
    assert rq("--index", str(top)).code == 0
    r = rq("-q", "--json", "Outside", cwd=top / "sub")
    doc = json.loads(r.out)
    assert doc["coverage"] == "complete" and doc["results"][0]["path"] == "../b.py"
    r = rq("--index", ".", cwd=top / "sub")
    assert r.code == 0 and "inside the indexed directory" in r.err
    assert "1 repositories" in rq("--status").out


def test_a_non_ascii_leaf_finds_its_files_first(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    files = {
        **filler(400),
        "a.py": "def ärger_helper():\n    pass\n",
        "zzz/b.py": "class Ärger:\n    pass\n",
    }
    repo = make_repo(files)
    r = rq("-q", "--json", "Ärger", cwd=repo.root)
    assert json.loads(r.out)["results"][0]["path"] == "zzz/b.py"


def test_text_queries_see_an_edit_on_a_complete_index(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0
    with open(repo.root / "lib/util.py", "a") as f:
        f.write("\n\ndef frobnicate_widget_thing():\n    pass\n")
    env = {"RQ_WARM_RECHECK_MS": "0"}  # outside the recheck window
    r = rq("--text", "frobnicate widget thing", "--limit", "1", cwd=repo.root, env=env)
    assert locs(r) == ["lib/util.py:5"], r.out


def test_a_new_file_in_a_subdirectory_after_a_check_of_an_index_without_a_listing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    from rq_engine.index.indexer import index_under

    repo = make_repo(SRC)
    conn = db()
    try:  # an index built without a sweep's listing of the directories
        index_under(conn, repo.root)
    finally:
        conn.close()
    assert rq("-q", "Zebra", cwd=repo.root).code == 1  # a check, from git alone
    repo.write("lib/deep/new_mod.py", "def fresh_thing():\n    pass\n")
    r = rq("-q", "fresh_thing", cwd=repo.root)
    assert (r.code, locs(r)) == (0, ["lib/deep/new_mod.py:1"])
