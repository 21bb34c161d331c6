#!/usr/bin/env python3
"""The persisted bm25-v1 cache, whole process, beside full-scan-v1 (issue: text ranking part 2).

    bench/text_cache.py [--corpora django,gostd] [--rounds 5] [--scratch DIR] [--json OUT]
                        [--no-full-scan]

Per corpus, in a scratch clone indexed into a scratch RQ_HOME (so edits never touch
the corpora), every number from fresh `rq` processes:
  full       `rq --text` with an empty $RQ_CACHE and RQ_TEXT_CACHE_DETACH=0: realize,
             build and publish the generation, answer (seconds; peak RSS of the process);
  open       the exact-hit open (manager.serve on a hit: read `current`, open, validate
             manifest, bounds and statistics), in-process, median of 20 (ms);
  hit        whole-process `rq --text` on an exact hit: the corpus's judged text queries
             and words drawn from its definitions, `--rounds` times each (p50/p95 ms);
  full-scan  whole-process `rq --text --ranker text-ranker/full-scan-v1`, the same
             queries once each (what every text query cost before the cache);
  add / change / remove / edge
             one edit to a file (a new function; its rename; its removal; blank lines
             inserted above every definition of a file), then one `rq --text` that must
             pick it up: whole process including the freshness check, the file's
             reindex and the delta (ms, median of `--rounds` edits of different files);
             *_apply: the cache manager's share of it (re-read the changed files,
             write the overlay, verify, publish, reopen: `"cache": {"ms"}`);
  size       the published generation's bytes; determinism: three hits print the same
             ranked IDs, scores and lines.
Unset PYTHONDONTWRITEBYTECODE before timing (users' machines write bytecode).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RQ = str(ROOT / ".venv" / "bin" / "rq")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
SHARED = Path(os.environ.get("SHARED", ROOT.parent / "shared" / "bench"))
BM25 = "text-ranker/bm25-v1"
FULL_SCAN = "text-ranker/full-scan-v1"
EXT = {"django": ".py", "gostd": ".go"}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict, float]:
    """(wall ms, parsed --json answer, nan) of one `rq --text … --json`."""
    t = time.perf_counter()
    p = subprocess.run([RQ, *args, "--json"], cwd=cwd, env=env, capture_output=True, text=True)
    ms = (time.perf_counter() - t) * 1000
    return ms, json.loads(p.stdout) if p.stdout.strip() else {}, float("nan")


def run_rss(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict, float]:
    """(wall ms, {}, peak RSS MB) of one `rq` process, its output discarded."""
    null = os.open(os.devnull, os.O_RDWR)
    here = os.getcwd()
    os.chdir(cwd)
    try:
        t = time.perf_counter()
        pid = os.posix_spawn(RQ, [RQ, *args], env, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
        _, _, ru = os.wait4(pid, 0)
    finally:
        os.chdir(here)
        os.close(null)
    return (time.perf_counter() - t) * 1000, {}, ru.ru_maxrss / 1024


def queries(corpus: str, scratch: Path, n: int = 20) -> list[str]:
    out = []
    for line in (SHARED / "text-queries-public.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d["corpus"] == corpus:
            out.append(d["query"])
    rnd = random.Random(7)
    files = sorted(p for p in scratch.rglob("*" + EXT[corpus]) if ".git" not in p.parts)
    words: list[str] = []
    for f in rnd.sample(files, min(60, len(files))):
        for tok in f.stem.replace("-", "_").split("_"):
            if len(tok) > 3:
                words.append(tok.lower())
    for _ in range(n):
        out.append(" ".join(rnd.sample(words, 2)))
    return out


def strip(ans: dict) -> list[tuple]:
    return [(r["id"], r["score"], r["line"]) for r in ans.get("results", [])]


def bench(corpus: str, work: Path, rounds: int, full_scan: bool = True) -> dict:
    src = CORPORA / corpus
    scratch = work / corpus
    if not scratch.exists():
        subprocess.run(["git", "clone", "-q", "--local", str(src), str(scratch)], check=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(RQ_HOME=str(work / f"{corpus}-home"), RQ_CACHE=str(work / f"{corpus}-cache"))
    env.update(RQ_TEXT_CACHE_DETACH="0")
    env.pop("RQ_WARM_RECHECK_MS", None)  # hits: the default freshness window (10 s)
    edit_env = dict(env, RQ_WARM_RECHECK_MS="0")  # an edit is looked for at once
    if not (work / f"{corpus}-home" / "index.db").exists():
        subprocess.run([RQ, "--index", str(scratch)], env=env, check=True, capture_output=True)
    shutil.rmtree(env["RQ_CACHE"], ignore_errors=True)
    qs = queries(corpus, scratch)
    res: dict = {"corpus": corpus}
    # full build
    ms, ans, _ = run(["--text", qs[0], "--ranker", BM25], scratch, env)
    assert ans["cache"]["state"] == "rebuilt", ans["cache"]
    res["full_s"] = ms / 1000
    shutil.rmtree(env["RQ_CACHE"], ignore_errors=True)
    _, _, res["full_rss_mb"] = run_rss(["--text", qs[0], "--ranker", BM25], scratch, env)
    gen = next(Path(env["RQ_CACHE"]).glob("text/*/g-*.db"))
    res["size_mb"] = gen.stat().st_size / 2**20
    # exact-hit open, in process
    code = (
        "import os,sys,time,statistics\n"
        "from rq_engine.store import db\nfrom rq_engine.text import source\n"
        "from rq_engine.text.cache import manager\nfrom pathlib import Path\n"
        "conn=db.connect(readonly=True); i=source.repository_of(conn, Path(os.getcwd()))\n"
        "ts=[]\nfor _ in range(20):\n t=time.perf_counter(); s=manager.serve(conn,i)\n"
        " ts.append((time.perf_counter()-t)*1000); assert s.state=='hit', s.state\n"
        " s.gen.close()\nprint(statistics.median(ts), s.gen.manifest.docs)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=scratch, env=env, capture_output=True, text=True
    )
    open_ms, docs = out.stdout.split()
    res["open_ms"], res["docs"] = float(open_ms), int(docs)
    # hits
    hit: list[float] = []
    first: dict[str, list[tuple]] = {}
    same = True
    for _ in range(rounds):
        for q in qs:
            ms, ans, _ = run(["--text", q, "--ranker", BM25], scratch, env)
            assert ans["cache"]["state"] == "hit", ans["cache"]
            hit.append(ms)
            same &= first.setdefault(q, strip(ans)) == strip(ans)
    res["hit_p50"], res["hit_p95"], res["deterministic"] = pct(hit, 0.5), pct(hit, 0.95), same
    fs = (
        [run(["--text", q, "--ranker", FULL_SCAN], scratch, env)[0] for q in qs]
        if full_scan
        else []
    )
    res["fullscan_p50"], res["fullscan_p95"] = (pct(fs, 0.5), pct(fs, 0.95)) if fs else ("-", "-")
    # one-file edits
    rnd = random.Random(11)
    files = sorted(p for p in scratch.rglob("*" + EXT[corpus]) if ".git" not in p.parts)
    edits: dict[str, list[float]] = {"add": [], "change": [], "remove": [], "edge": []}
    apply_ms: dict[str, list[float]] = {k: [] for k in edits}
    for k in range(rounds):
        f = rnd.choice(files)
        orig = f.read_bytes()
        name = f"zzbenchfn{k}"
        add = f"\ndef {name}():\n    pass\n" if corpus == "django" else f"\nfunc {name}() {{}}\n"
        steps = [
            ("add", orig + add.encode(), name),
            ("change", orig + add.replace(name, name + "renamed").encode(), name + "renamed"),
            ("remove", orig, "zz bench"),
            ("edge", b"\n\n" + orig, qs[0]),
        ]
        for what, body, q in steps:
            f.write_bytes(body)
            ms, ans, _ = run(["--text", q, "--ranker", BM25], scratch, edit_env)
            want = {"edge": ("edge", "delta")}.get(what, ("delta",))
            assert ans["cache"]["state"] in want, (what, ans["cache"])
            edits[what].append(ms)
            apply_ms[what].append(ans["cache"]["ms"])  # the cache manager's own share
        f.write_bytes(orig)
        run(["--text", qs[0], "--ranker", BM25], scratch, edit_env)
    for what, xs in edits.items():
        res[f"{what}_ms"] = statistics.median(xs)
        res[f"{what}_apply_ms"] = statistics.median(apply_ms[what])
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default="django,gostd")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scratch", default="/tmp/rq-bench-text-cache")
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--no-full-scan",
        action="store_true",
        help="skip the full-scan-v1 column (minutes on Go std)",
    )
    ns = ap.parse_args()
    work = Path(ns.scratch)
    work.mkdir(parents=True, exist_ok=True)
    rows = [bench(c, work, ns.rounds, not ns.no_full_scan) for c in ns.corpora.split(",")]
    cols = [
        "corpus", "docs", "full_s", "full_rss_mb", "size_mb", "open_ms", "hit_p50", "hit_p95",
        "fullscan_p50", "fullscan_p95", "add_ms", "change_ms", "remove_ms", "edge_ms",
        "add_apply_ms", "change_apply_ms", "remove_apply_ms", "edge_apply_ms", "deterministic",
    ]  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        cells = [f"{r[c]:.1f}" if isinstance(r[c], float) else str(r[c]) for c in cols]
        print("| " + " | ".join(cells) + " |")
    for r in rows:
        if r["fullscan_p50"] == "-":
            continue
        print(
            f"{r['corpus']}: hit/full-scan p50 {r['hit_p50'] / r['fullscan_p50']:.3f}x,"
            f" p95 {r['hit_p95'] / r['fullscan_p95']:.3f}x"
        )
    if ns.json:
        Path(ns.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
