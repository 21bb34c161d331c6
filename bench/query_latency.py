#!/usr/bin/env python3
"""Query latency: whole `rq -q` processes beside readtags and an rg definition search.

For each indexed corpus, every public query of that corpus is run as a whole
process (cwd = the corpus), interleaved with the peers on the same query so
machine load hits them alike:

  rq        rq -q --limit 10 QUERY            (RQ_HOME = the bench index)
  readtags  readtags -t TAGS -i - LEAF        (exact lookup; tags from ctags_fzf.sh's cache)
  rg        rg -n -e '(def|class|fn|func|…)\\s+LEAF\\b' .   (a definition grep)

then the engine alone, in-process: `engine` (Searcher.search over an open
connection) and `check` (a miss's freshness check, fresh.check: what a miss pays
on top of its search). Prints p50/p95 per corpus and tool, and rq's ratio to
each peer.

`--random N` adds N definition names drawn from the corpus's index (a fixed seed,
the same names for every tool): the names a developer might type that no judged
set chose, nearly all of them hits. `--queries-of CORPUS` runs that corpus's
judged queries in every corpus given (the kernel slice's in the whole Linux tree:
`--corpora linux --queries-of kernel`).

`--tree DIR` runs rq and the in-process rows from another source tree instead of
this one (e.g. `git archive HEAD | tar -x -C DIR`, the code before a change).
`--against DIR` runs rq from DIR as well, beside this tree's on every query in
alternating order (row `rq@DIR`), and prints the median of the paired
differences: on a loaded machine, the figure that still shows a change of a few
milliseconds. `--against-home HOME` gives DIR its own RQ_HOME: a change that
migrates the index (a new step DIR's rq does not know) is measured on a copy
migrated and re-indexed by this tree, DIR on the index as it was.

Usage:
  RQ_HOME=/root/.cache/rq-bench/home bench/query_latency.py [--corpora django,gostd] [--rounds 3]
      [--slowest 5] [--tree DIR] [--against DIR]

Numbers from a shared, loaded machine are noisy: ratios against peers measured
in the same run are the figure to read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RQ_SHARED", ROOT.parent / "shared"))
if not (SHARED / "bench").is_dir():
    SHARED = Path("/work/shared")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
TAGS_DIR = Path(os.environ.get("TAGS_DIR", Path.home() / ".cache" / "rq-bench-tags"))
RQ = os.environ.get("RQ_BIN") or str(ROOT / ".venv" / "bin" / "rq")
DEF_WORDS = "def|class|module|fn|func|struct|enum|trait|type|interface|const|function|let|var"


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def leaf(q: str) -> str:
    return re.split(r"::|#|\.", q)[-1] or q


# Installed Python caches compiled modules; a PYTHONDONTWRITEBYTECODE=1 left in
# the environment would make every rq start recompile the engine (~+60 ms).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


CPU: dict[str, list[float]] = {}

# a peer that is not installed is left out of the table (`apt-get install ripgrep`)
HAVE_RG = shutil.which("rg") is not None


def timed(cmd: list[str], cwd: Path, tool: str = "", env: dict[str, str] | None = None) -> float:
    """Wall ms of one whole process; its CPU ms (user+sys) go to CPU[tool]: on a
    loaded machine CPU time is the steadier of the two."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        cmd, cwd=cwd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if tool:
        CPU.setdefault(tool, []).append(cpu)
    return wall


def ensure_tags(corpus: str, root: Path) -> Path | None:
    tags = TAGS_DIR / corpus
    if not tags.exists():
        subprocess.run(
            [str(SHARED / "bench" / "ctags_fzf.sh"), "x", corpus],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return tags if tags.exists() else None


def rq_cmd(tree: Path | None) -> list[str]:
    """How to run rq: the installed script, or this interpreter on a source tree
    (with tree_env: PYTHONPATH, so the detached warmer a query starts, `python -m
    rq_engine --warm`, runs the same tree, not the installed one, and never
    migrates the other tree's index)."""
    if tree is None:
        return [RQ]
    return [sys.executable, "-P", "-m", "rq_engine"]


def tree_env(tree: Path | None, home: Path | None = None) -> dict[str, str]:
    env = dict(ENV, PYTHONPATH=str(tree)) if tree is not None else dict(ENV)
    if home is not None:
        env["RQ_HOME"] = str(home)
    return env


def engine_times(root: Path, queries: list[str]) -> list[float]:
    from rq_engine.search.pipeline import Searcher
    from rq_engine.store.db import connect

    conn = connect()
    s = Searcher(conn, root)
    out = []
    for q in queries:
        t = time.perf_counter()
        for _ in s.search(q, limit=10):
            pass
        out.append((time.perf_counter() - t) * 1000)
    conn.close()
    return out


def check_times(root: Path, n: int) -> list[float]:
    """A miss's freshness check (did anything move since the index was settled?), n times."""
    from rq_engine.core.identity import git_dir
    from rq_engine.index import fresh
    from rq_engine.search.pipeline import Searcher
    from rq_engine.store.db import connect

    conn = connect()
    s = Searcher(conn, root)
    out = []
    if s.repo_id is not None and s.state == "complete":
        gd = git_dir(s.root)
        fresh.check(conn, s.root, gd, s.repo_id)  # (the first may list what git tracks)
        for _ in range(n):
            t = time.perf_counter()
            fresh.check(conn, s.root, gd, s.repo_id)
            out.append((time.perf_counter() - t) * 1000)
    conn.close()
    return out


def random_names(root: Path, n: int, seed: int = 14) -> list[str]:
    """n distinct definition names of the checkout at `root`, drawn from the index at
    RQ_HOME with a fixed seed (sorted first, so the draw does not depend on row order)."""
    import random
    import sqlite3

    from rq_engine.store.paths import index_db_file

    conn = sqlite3.connect(f"file:{index_db_file()}?mode=ro", uri=True)
    names = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT s.name FROM symbols s JOIN checkouts c"
            " ON c.repository_id = s.repository_id WHERE c.root_path = ?",
            (str(root.resolve()),),
        )
    ]
    conn.close()
    names.sort()
    return random.Random(seed).sample(names, min(n, len(names)))


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--queries", default=str(SHARED / "bench" / "queries-public.jsonl"))
    ap.add_argument(
        "--corpora", default="django,gostd", help="comma-separated (default django,gostd)"
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--random", type=int, default=0, metavar="N", help="add N names drawn from the index"
    )
    ap.add_argument(
        "--no-rg", action="store_true", help="leave rg out (a second per query on Linux)"
    )
    ap.add_argument(
        "--queries-of", metavar="CORPUS", help="run this corpus's judged queries in each corpus"
    )
    ap.add_argument("--json", dest="json_out")
    ap.add_argument(
        "--slowest",
        type=int,
        default=0,
        metavar="N",
        help="also print rq's N slowest queries of each corpus by p50 (what sets the p95)",
    )
    ap.add_argument("--tree", type=Path, help="run rq and the in-process rows from this tree")
    ap.add_argument("--against", type=Path, help="run rq from this tree too, paired")
    ap.add_argument(
        "--against-home",
        type=Path,
        help="the --against tree's RQ_HOME (an index of the old schema, when the change migrates it)",
    )
    a = ap.parse_args()
    sys.path.insert(0, str((a.tree or ROOT).resolve()))
    mine_tree = a.tree.resolve() if a.tree else None
    if a.against is not None and a.tree is None:
        mine_tree = ROOT  # (both started the same way, so only the trees differ)
    rq = rq_cmd(mine_tree)
    rq_env = tree_env(mine_tree)
    other = rq_cmd(a.against.resolve()) if a.against is not None else None
    other_env = tree_env(a.against.resolve(), a.against_home) if a.against is not None else None
    peer = f"rq@{a.against}" if a.against is not None else ""
    qs = [json.loads(line) for line in open(a.queries, encoding="utf-8") if line.strip()]
    report: dict[str, dict[str, float]] = {}
    print(
        f"RQ_HOME={os.environ.get('RQ_HOME', '(default)')}  rounds={a.rounds}  rq={mine_tree or rq[-1]}"
    )
    hdr = (
        f"{'corpus':8} {'tool':9} {'n':>4} {'p50 ms':>8} {'p95 ms':>8}  {'rq/peer p50':>11}"
        f" {'rq/peer p95':>11}  {'cpu p50':>8} {'cpu p95':>8}"
    )
    print(hdr)
    for corpus in a.corpora.split(","):
        root = CORPORA / corpus
        mine = [q["query"] for q in qs if q["corpus"] == (a.queries_of or corpus)]
        if (root / ".git").exists() and a.random:
            mine += [n for n in random_names(root, a.random) if n not in mine]
        if not mine or not (root / ".git").exists():
            print(f"{corpus:8} (skipped: no queries or corpus absent)")
            continue
        tags = ensure_tags(corpus, root)
        timed([*rq, "-q", mine[0]], root, env=rq_env)  # warm: bytecode and page cache
        times: dict[str, list[float]] = {"rq": [], "readtags": [], "rg": []}
        by_query: dict[str, list[float]] = {q: [] for q in mine}
        paired: dict[str, list[float]] = {q: [] for q in mine}
        if other is not None:
            timed([*other, "-q", mine[0]], root, env=other_env)
            times[peer] = []
        CPU.clear()
        for n in range(a.rounds):
            for q in mine:
                if other is not None and n % 2:
                    times[peer].append(
                        timed([*other, "-q", "--limit", "10", q], root, peer, other_env)
                    )
                times["rq"].append(timed([*rq, "-q", "--limit", "10", q], root, "rq", rq_env))
                by_query[q].append(times["rq"][-1])
                if other is not None and not n % 2:
                    times[peer].append(
                        timed([*other, "-q", "--limit", "10", q], root, peer, other_env)
                    )
                if other is not None:
                    paired[q].append(times["rq"][-1] - times[peer][-1])
                if tags is not None:
                    times["readtags"].append(
                        timed(["readtags", "-t", str(tags), "-i", "-", leaf(q)], root, "readtags")
                    )
                if HAVE_RG and not a.no_rg:
                    pat = rf"\b({DEF_WORDS})\s+{re.escape(leaf(q))}\b"
                    times["rg"].append(timed(["rg", "-n", "-i", "-e", pat, "."], root, "rg"))
        times["engine"] = engine_times(root, mine * a.rounds)
        times["check"] = check_times(root, len(mine) * a.rounds)
        for tool, xs in times.items():
            if not xs:
                continue
            p50, p95 = statistics.median(xs), pct(xs, 0.95)
            report[f"{corpus}/{tool}"] = {"p50": p50, "p95": p95, "n": len(xs)}
            ratio = ""
            if tool in ("readtags", "rg"):
                r = report[f"{corpus}/rq"]
                ratio = f"{r['p50'] / p50:11.2f} {r['p95'] / p95:11.2f}"
            cpu = CPU.get(tool)
            c = f"{statistics.median(cpu):8.1f} {pct(cpu, 0.95):8.1f}" if cpu else ""
            if cpu:
                report[f"{corpus}/{tool}"].update(
                    cpu_p50=statistics.median(cpu), cpu_p95=pct(cpu, 0.95)
                )
            print(f"{corpus:8} {tool:9} {len(xs):4d} {p50:8.1f} {p95:8.1f}  {ratio:23} {c}")
        diffs = [x for xs in paired.values() for x in xs]
        if diffs:
            d = statistics.median(diffs)
            report[f"{corpus}/paired"] = {"median_ms": d, "n": len(diffs)}
            print(f"{corpus:8} rq - {peer}: median of {len(diffs)} paired differences {d:+.1f} ms")
        if a.slowest:
            slow = sorted(by_query.items(), key=lambda kv: -statistics.median(kv[1]))
            shown = ", ".join(
                f"{q} {statistics.median(xs):.1f}"
                + (f" ({statistics.median(paired[q]):+.1f})" if paired[q] else "")
                for q, xs in slow[: a.slowest]
            )
            said = " (paired difference)" if diffs else ""
            print(f"{corpus:8} slowest rq queries (p50 ms{said}): {shown}")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
