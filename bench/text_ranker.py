#!/usr/bin/env python3
"""Text ranker benchmark: full-scan-v1 vs in-memory bm25-v1, side by side, same run.

    bench/text_ranker.py [--real ID,ID,...] [--synthetic N] [--procs 3] [--rounds 2]
    bench/text_ranker.py cache [--corpora django,gostd] [--rounds 5]   (bench/text_cache.py)

Workloads (each written once as graph.json into --work, then loaded by fresh
child processes, so every profile starts from the same validated realization):
  real       the graphs of indexed repositories merged (default: Go std + Django,
             ~314k nodes, ~305k documents), from the index at $RQ_HOME;
             queries: the judged text queries of those corpora plus 40 drawn
             from their nodes.
  synthetic  N nodes (default 100,000): files under word paths, classes with
             methods, camelCase/snake_case names over a Zipf vocabulary (seeded).

Per workload and profile, `--procs` fresh processes each: load the graph (not
timed), then time build + the first query (cold: what a one-shot `rq --text`
pays after loading), then every query `--rounds` times (warm). Reported: build
seconds (median), peak RSS of the process (median, MB, graph.json parse
included), the resident growth the ranker's index adds over the loaded graph
(idx MB), cold p50/p95 and warm p50/p95 in ms, and the warm ratio
bm25/full-scan. The machine is shared: read ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROFILES = ("text-ranker/full-scan-v1", "text-ranker/bm25-v1")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
SHARED = Path(os.environ.get("SHARED", ROOT.parent / "shared" / "bench"))


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def rss_mb() -> float:
    """Peak resident set of this process image so far (MB): VmHWM, which execve resets.

    (getrusage's ru_maxrss is not used: Linux carries it over fork+exec, so a
    child would report its parent's peak.)
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    """Resident set now (MB), from /proc/self/statm (Linux); 0 elsewhere."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


# --- child: one profile over one workload ----------------------------------------------


def child(graph_path: str, profile: str, queries_path: str, first: int, rounds: int) -> None:
    from rq_engine.text.graphjson import load
    from rq_engine.text.query import TextQuery
    from rq_engine.text.service import build_ranker

    g = load(Path(graph_path))
    queries = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    parsed = [TextQuery.parse(q) for q in queries]
    import gc

    gc.collect()
    rss_graph = current_rss_mb()
    order = parsed[first:] + parsed[:first]
    t0 = time.perf_counter()
    ranker = build_ranker(profile, g)
    t1 = time.perf_counter()
    ranker.search(g, order[0], limit=20)
    t2 = time.perf_counter()
    gc.collect()
    rss_index = current_rss_mb() - rss_graph
    warm: list[float] = []
    truncated = 0
    for _ in range(rounds):
        for q in parsed:
            s = time.perf_counter()
            r = ranker.search(g, q, limit=20)
            warm.append((time.perf_counter() - s) * 1000)
            truncated += r.truncated
    print(
        json.dumps(
            {
                "build_s": t1 - t0,
                "cold_ms": (t2 - t0) * 1000,
                "first_query_ms": (t2 - t1) * 1000,
                "warm_ms": warm,
                "rss_mb": rss_mb(),
                "rss_index_mb": rss_index,
                "docs": ranker.n_docs,
                "truncated": truncated,
            }
        )
    )


# --- workloads ---------------------------------------------------------------------------


def real_workload(idents: list[str], work: Path) -> tuple[Path, Path, int]:
    from rq_engine.store import db
    from rq_engine.text import source
    from rq_engine.text.graphjson import dump
    from rq_engine.text.service import merge

    conn = db.connect(readonly=True)
    try:
        graphs = [source.realize(conn, i) for i in idents]
    finally:
        conn.close()
    g = graphs[0] if len(graphs) == 1 else merge(graphs)
    gp = work / "real.json"
    dump(g, gp)
    names = {Path(i.split(":", 1)[-1]).name for i in idents}
    queries: list[str] = []
    judged = SHARED / "text-queries-public.jsonl"
    if judged.exists():
        for line in judged.read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            if q["corpus"] in names:
                queries.append(q["query"])
    queries += sampled_queries(g, 40, seed=7)
    qp = work / "real-queries.json"
    qp.write_text(json.dumps(queries), encoding="utf-8")
    return gp, qp, len(g.nodes)


def sampled_queries(g, n: int, seed: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Queries a user could type about real nodes: 2-3 words from name, container, path."""
    from rq_engine.text import lexical

    rng = random.Random(seed)
    syms = [x for x in g.nodes if x.kind != "file"]
    out = []
    while len(out) < n:
        node = rng.choice(syms)
        # words as a user types them: the parts of the name, container and path
        # (not the analyzer's joined compounds)
        words = [p for p in lexical.compact_parts(node.qualified) if len(p) > 2]
        words += [p for p in lexical.compact_parts(lexical.path_text(node.path))[-2:] if len(p) > 2]
        words = list(dict.fromkeys(words))
        if len(words) < 2:
            continue
        out.append(" ".join(rng.sample(words, min(len(words), rng.choice((2, 3))))))
    return out


def synthetic_workload(n: int, work: Path) -> tuple[Path, Path, int]:
    from rq_engine.text.graph import Edge, Graph, Node, file_id, stable_id
    from rq_engine.text.graphjson import dump

    rng = random.Random(20261130)
    syll = [
        "ka",
        "lo",
        "mi",
        "ran",
        "te",
        "vo",
        "zu",
        "per",
        "sel",
        "dat",
        "ion",
        "ex",
        "or",
        "qua",
        "bri",
        "fen",
        "gal",
        "hul",
        "jin",
        "nox",
        "pli",
        "rud",
        "sto",
        "tav",
        "wem",
    ]
    vocab = sorted(
        {"".join(rng.choice(syll) for _ in range(rng.choice((2, 3)))) for _ in range(8000)}
    )
    weights = [1.0 / (i + 1) ** 1.05 for i in range(len(vocab))]

    def words(k: int) -> list[str]:
        return rng.choices(vocab, weights=weights, k=k)

    repo = "synthetic/100k"
    nodes: list[Node] = []
    edges: list[Edge] = []
    seen: set[str] = set()
    line = 0
    while len(nodes) < n:
        path = "/".join(words(rng.choice((2, 3, 4)))) + f"/{'_'.join(words(2))}.py"
        fid = file_id(repo, path)
        if fid in seen:
            continue
        seen.add(fid)
        nodes.append(Node(fid, "file", path.rsplit("/", 1)[1], path, path, 1, None, "python"))
        line = 1
        for _ in range(rng.randint(1, 6)):
            cname = "".join(w.capitalize() for w in words(rng.choice((1, 2, 3))))
            cid = stable_id(repo, path, "class", cname)
            if cid in seen:
                continue
            seen.add(cid)
            nodes.append(Node(cid, "class", cname, cname, path, line, line + 40, "python"))
            edges.append(Edge(fid, cid))
            for _ in range(rng.randint(0, 12)):
                mname = "_".join(words(rng.choice((1, 2, 3))))
                q = f"{cname}.{mname}"
                mid = stable_id(repo, path, "method", q)
                if mid in seen:
                    continue
                seen.add(mid)
                line += 3
                nodes.append(Node(mid, "method", mname, q, path, line, line + 2, "python"))
                edges.append(Edge(cid, mid))
            line += 45
    g = Graph(repo, nodes, edges)
    gp = work / "synthetic.json"
    dump(g, gp)
    qp = work / "synthetic-queries.json"
    qp.write_text(json.dumps(sampled_queries(g, 60, seed=11)), encoding="utf-8")
    return gp, qp, len(g.nodes)


# --- parent ------------------------------------------------------------------------------


def measure(name: str, gp: Path, qp: Path, nodes: int, procs: int, rounds: int) -> list[dict]:  # type: ignore[type-arg]
    rows = []
    for profile in PROFILES:
        runs = []
        for k in range(procs):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(gp),
                    profile,
                    str(qp),
                    str(k),
                    str(rounds),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(out.stdout))
        warm = [x for r in runs for x in r["warm_ms"]]
        cold = [r["cold_ms"] for r in runs]
        rows.append(
            {
                "workload": name,
                "nodes": nodes,
                "docs": runs[0]["docs"],
                "profile": profile,
                "build_s": statistics.median(r["build_s"] for r in runs),
                "rss_mb": statistics.median(r["rss_mb"] for r in runs),
                "rss_over_graph_mb": statistics.median(r["rss_index_mb"] for r in runs),
                "cold_p50": pct(cold, 0.5),
                "cold_p95": pct(cold, 0.95),
                "warm_p50": pct(warm, 0.5),
                "warm_p95": pct(warm, 0.95),
                "queries": len(json.loads(qp.read_text(encoding="utf-8"))),
                "truncated": runs[0]["truncated"] // max(rounds, 1),
            }
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument(
        "--real",
        default=f"local:{CORPORA}/gostd,local:{CORPORA}/django",
        help="comma-separated repository identities from the index ('' to skip)",
    )
    ap.add_argument(
        "--synthetic", type=int, default=100_000, help="synthetic node count (0 to skip)"
    )
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--work", default=None, help="keep workload files here")
    ap.add_argument("--json", default=None, help="also write the rows here")
    a = ap.parse_args()
    if a.child:
        child(a.child[0], a.child[1], a.child[2], int(a.child[3]), int(a.child[4]))
        return 0
    work = Path(a.work or tempfile.mkdtemp(prefix="rq-text-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    if a.real:
        gp, qp, n = real_workload([x for x in a.real.split(",") if x], work)
        rows += measure("real", gp, qp, n, a.procs, a.rounds)
    if a.synthetic:
        gp, qp, n = synthetic_workload(a.synthetic, work)
        rows += measure("synthetic", gp, qp, n, a.procs, a.rounds)
    hdr = (
        f"{'workload':<10} {'nodes':>7} {'docs':>7} {'profile':<25} {'build s':>8} {'RSS MB':>7}"
        f" {'idx MB':>6} {'cold p50':>9} {'cold p95':>9} {'warm p50':>9} {'warm p95':>9} {'trunc':>5}"
    )
    print(hdr)
    for r in rows:
        print(
            f"{r['workload']:<10} {r['nodes']:>7} {r['docs']:>7} {r['profile']:<25} {r['build_s']:>8.2f}"
            f" {r['rss_mb']:>7.0f} {r['rss_over_graph_mb']:>6.0f} {r['cold_p50']:>9.1f} {r['cold_p95']:>9.1f}"
            f" {r['warm_p50']:>9.2f} {r['warm_p95']:>9.2f} {r['truncated']:>5}"
        )
    for w in sorted({r["workload"] for r in rows}):
        fs, bm = (
            next(r for r in rows if r["workload"] == w and r["profile"] == p) for p in PROFILES
        )
        print(
            f"{w}: bm25-v1 warm p50 {bm['warm_p50'] / fs['warm_p50']:.3f}x, p95 "
            f"{bm['warm_p95'] / fs['warm_p95']:.3f}x of full-scan-v1 (gate: <= 0.70); "
            f"cold p50 {bm['cold_p50'] / fs['cold_p50']:.2f}x; build {bm['build_s'] / fs['build_s']:.2f}x; "
            f"{bm['queries']} queries"
        )
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(
        f"(ms unless noted; {os.cpu_count()} cores shared with other work: read ratios, not absolutes)"
    )
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["cache"]:
        # `bench/text_ranker.py cache [...]`: the persisted cache beside full-scan-v1,
        # whole process (full rebuild, exact-hit open, hits, one-file edits): text_cache.py
        sys.argv = [str(Path(__file__).with_name("text_cache.py")), *sys.argv[2:]]
        sys.path.insert(0, str(Path(__file__).parent))
        import text_cache

        text_cache.main()
        sys.exit(0)
    sys.exit(main())
