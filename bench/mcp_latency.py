#!/usr/bin/env python3
"""MCP latency: `find_symbol` round trips through the SDK's own stdio client, beside its peers.

For each corpus (cwd = the corpus, RQ_HOME = the bench index), one `rq --mcp`
server is started and every public query of that corpus is sent as
`find_symbol {"query": Q, "limit": 10}` through `mcp.ClientSession` (the
client checks each result against the tool's output schema, as a real one
does). Interleaved on the same query, so machine load hits them alike:

  engine   QueryService.answer(Q, limit=10) in this process (what the server's
           engine process runs for the call, without the protocol and the pipe)
  rq -q    rq -q --json --limit 10 Q, a whole process (what an agent shelling
           out pays per query)

Then "start": a fresh server, from spawning it to the first find_symbol answer
(initialize included), --starts times. Prints p50/p95 per corpus and the
targets of issue 13: round trip p50 <= 10 ms, p95 <= 25 ms; start <= 1.5 s.

On a loaded machine wall times measure the scheduler as much as rq: each round
trip wakes three processes (client, server, engine). So the CPU a round trip
costs is printed too — the client's, the server's and the engine's, summed over
the MCP calls and divided by their number (/proc, 10 ms ticks over ~100 calls)
— beside the engine peer's CPU per answer: on an idle machine a round trip
takes about its CPU time, since the three run one after the other.

Usage:
  RQ_HOME=/root/.cache/rq-bench/home .venv/bin/python bench/mcp_latency.py \\
      [--corpora django,gostd] [--rounds 5] [--starts 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RQ_SHARED", ROOT.parent / "shared"))
if not (SHARED / "bench").is_dir():
    SHARED = Path("/work/shared")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
RQ = os.environ.get("RQ_BIN") or str(ROOT / ".venv" / "bin" / "rq")
# Installed Python caches compiled modules; PYTHONDONTWRITEBYTECODE=1 would make
# every start recompile the engine.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TARGETS = {"p50": 10.0, "p95": 25.0, "start": 1500.0}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=RQ, args=["--mcp"], env=ENV, cwd=str(root))


CPU: dict[str, float] = {}  # ms of CPU, by who spent it


def proc_cpu_ms(pid: int) -> float:
    """user + system CPU of a live process, from /proc (clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def server_pids() -> tuple[int, int]:
    """(server, engine): our `rq --mcp` child and its engine process."""
    me = os.getpid()
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    server = next(
        p for p in kids.get(me, []) if b"--mcp" in Path(f"/proc/{p}/cmdline").read_bytes()
    )
    engine = next(
        p for p in kids.get(server, []) if b"mcp.engine" in Path(f"/proc/{p}/cmdline").read_bytes()
    )
    return server, engine


async def find(s: ClientSession, q: str) -> float:
    c, t = time.process_time(), time.perf_counter()
    r = await s.call_tool("find_symbol", {"query": q, "limit": 10})
    ms = (time.perf_counter() - t) * 1000
    CPU["client"] = CPU.get("client", 0.0) + (time.process_time() - c) * 1000
    if r.is_error:
        raise SystemExit(f"find_symbol {q!r} failed: {r.content}")
    return ms


async def start_to_first_answer(root: Path, q: str) -> float:
    t = time.perf_counter()
    async with stdio_client(params(root)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        await s.call_tool("find_symbol", {"query": q, "limit": 10})
        return (time.perf_counter() - t) * 1000


def rq_q(root: Path, q: str) -> float:
    t = time.perf_counter()
    subprocess.run(
        [RQ, "-q", "--json", "--limit", "10", q],
        cwd=root,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return (time.perf_counter() - t) * 1000


def engine_ms(svc: Any, q: str, wait: Any) -> float:
    c, t = time.process_time(), time.perf_counter()
    svc.answer(q, limit=10, wait=wait)
    CPU["peer"] = CPU.get("peer", 0.0) + (time.process_time() - c) * 1000
    return (time.perf_counter() - t) * 1000


async def corpus_run(root: Path, queries: list[str], rounds: int) -> dict[str, list[float]]:
    from rq_engine.search.service import QueryService, Wait

    svc = QueryService(str(root), source="bench")
    wait = Wait.for_face(None, interactive=False)
    times: dict[str, list[float]] = {"mcp": [], "engine": [], "rq -q": []}
    async with stdio_client(params(root)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        await s.list_tools()  # (the client caches the output schemas it validates against)
        for q in queries[:3]:  # warm: page cache, the engine's first searches
            await find(s, q)
        CPU.clear()
        pids = server_pids()
        before = [proc_cpu_ms(p) for p in pids]
        for n in range(rounds):
            for q in queries:
                # Who goes first on a query alternates by round: the first to ask after a
                # verdict expired pays git's answer (index/fresh.py), the next finds it.
                if n % 2:
                    times["rq -q"].append(rq_q(root, q))
                    times["engine"].append(engine_ms(svc, q, wait))
                times["mcp"].append(await find(s, q))
                if not n % 2:
                    times["engine"].append(engine_ms(svc, q, wait))
                    times["rq -q"].append(rq_q(root, q))
        after = [proc_cpu_ms(p) for p in pids]
    CPU["server"], CPU["engine"] = after[0] - before[0], after[1] - before[1]
    svc.close()
    return times


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--queries", default=str(SHARED / "bench" / "queries-public.jsonl"))
    ap.add_argument("--corpora", default="django,gostd")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--json", dest="json_out")
    a = ap.parse_args()
    qs = [json.loads(line) for line in open(a.queries, encoding="utf-8") if line.strip()]
    print(f"RQ_HOME={os.environ.get('RQ_HOME', '(default)')}  rounds={a.rounds}  rq={RQ}")
    print(f"{'corpus':8} {'what':8} {'n':>4} {'p50 ms':>8} {'p95 ms':>8}  target")
    report: dict[str, Any] = {}
    for corpus in a.corpora.split(","):
        root = CORPORA / corpus
        mine = [q["query"] for q in qs if q["corpus"] == corpus]
        if not mine or not (root / ".git").exists():
            print(f"{corpus:8} (skipped: no queries or corpus absent)")
            continue
        times = anyio.run(corpus_run, root, mine, a.rounds)
        times["start"] = [
            anyio.run(start_to_first_answer, root, mine[i % len(mine)]) for i in range(a.starts)
        ]
        for what, xs in times.items():
            p50, p95 = statistics.median(xs), pct(xs, 0.95)
            report[f"{corpus}/{what}"] = {"n": len(xs), "p50": p50, "p95": p95}
            goal = ""
            if what == "mcp":
                ok = p50 <= TARGETS["p50"] and p95 <= TARGETS["p95"]
                goal = f"p50 <= {TARGETS['p50']:g}, p95 <= {TARGETS['p95']:g}: {'met' if ok else 'MISSED'}"
            elif what == "start":
                goal = f"<= {TARGETS['start']:g}: {'met' if p50 <= TARGETS['start'] else 'MISSED'}"
            print(f"{corpus:8} {what:8} {len(xs):4d} {p50:8.1f} {p95:8.1f}  {goal}")
        n = len(times["mcp"])
        cpu = {k: v / n for k, v in CPU.items()}
        report[f"{corpus}/cpu_per_call_ms"] = cpu
        total = cpu["client"] + cpu["server"] + cpu["engine"]
        print(
            f"{corpus:8} CPU per round trip {total:.1f} ms (client {cpu['client']:.1f},"
            f" server {cpu['server']:.1f}, engine {cpu['engine']:.1f});"
            f" the engine peer in-process {cpu['peer']:.1f} ms per answer"
        )
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
