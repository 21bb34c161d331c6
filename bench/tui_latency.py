#!/usr/bin/env python3
"""Picker latency: keystroke to rendered results in a headless pilot, and start-up to first frame.

Keystroke to results. For each indexed corpus the picker runs headless
(`App.run_test`, 120x40) with the corpus as its working directory. Every public
query of that corpus is typed from an empty line, one character at a time
(key events sent the way the terminal driver sends them); for each keystroke
the time from sending the key to the end of the first frame composited after
that prefix's *final* batch went into the list is one sample (see
PaintWatch). Echo is key to the first frame showing the typed character in
the query line (typing never waits for a search). Then the same queries are
typed in a burst (no waiting between keys, so earlier searches are
cancelled) and the sample is last key to final results. In the same run, the
peer is the engine alone: `Searcher.search` in-process over the same prefixes
(the picker's overhead is the ratio). Each keystroke also records the
process CPU time (all threads) it cost: on a loaded shared machine wall time
stretches with the load average, CPU time much less, so it is the better guide
to what an idle machine of this class would show.

Start-up to first frame. A real `rq` process on a pseudo-terminal (100x30) in
the corpus directory; the sample is the time from spawn until the status line
(`F1 help`, part of the first composed frame) has been written to the
terminal, and the CPU time (user + system) the process used by then. Peer in the same run: `fzf` started the same way until its prompt
counter appears. Plus the import time of the picker modules alone.

Usage:
  bench/tui_latency.py [--home DIR] [--corpora django,gostd] [--startup-runs 9] [--json OUT]
  bench/tui_latency.py --home /tmp/linux-home --corpora linux=kernel   # another corpus's queries

--home defaults to $RQ_HOME, else /root/.cache/rq-bench/home. The corpora
must be indexed there (`RQ_HOME=DIR rq --index CORPUS`). The machine is shared
and loaded: read medians and the ratios to the peers, not single numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path("/work/shared") if not (ROOT.parent / "shared").is_dir() else ROOT.parent / "shared"
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
RQ = os.environ.get("RQ_BIN") or str(ROOT / ".venv" / "bin" / "rq")
DEFAULT_HOME = Path("/root/.cache/rq-bench/home")
SIZE = (120, 40)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))] if xs else float("nan")


# the start-up peer; a machine without it still measures rq (`apt-get install fzf`)
HAVE_FZF = shutil.which("fzf") is not None
NO_FZF = "fzf not installed (apt-get install fzf)"


def summary(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": round(pct(xs, 0.5), 2), "p95": round(pct(xs, 0.95), 2)}


def queries_for(corpus: str) -> list[str]:
    out = []
    for name in ("queries-public.jsonl", "queries-public-c-cpp-java-php.jsonl"):
        with open(SHARED / "bench" / name) as f:
            for line in f:
                q = json.loads(line)
                if q["corpus"] == corpus:
                    out.append(q["query"])
    return out


# --- keystroke to rendered results -------------------------------------------------


class PaintWatch:
    """When the frame holding a query's final results has been composited.

    Wraps two methods of the live picker screen (this is measurement, not
    product code): `_draw` notes that a final batch went into the widgets, and
    the screen's `_compositor_refresh` stamps the first frame painted after
    it. Waiting on an asyncio.Event, not polling, so the bench does not compete
    for the GIL with the search thread it measures.
    """

    def __init__(self, picker: Any) -> None:
        self.picker = picker
        self.event = asyncio.Event()
        self.pending: str | None = None
        self.painted: dict[str, float] = {}
        self.cpu: dict[str, float] = {}  # process CPU time (all threads) at that frame
        self.echoed: dict[str, float] = {}  # first frame showing the typed text in the input
        query_input = picker.query_one("#query")
        draw, refresh = picker._draw, picker._compositor_refresh

        def drawn(msg: Any) -> None:
            draw(msg)
            if msg.batch.final and msg.generation == picker.generation:
                self.pending = msg.query

        def painted() -> None:
            refresh()
            self.echoed.setdefault(query_input.value, time.perf_counter())
            if self.pending is not None:
                self.painted[self.pending] = time.perf_counter()
                self.cpu[self.pending] = time.process_time()
                self.pending = None
                self.event.set()

        picker._draw = drawn
        picker._compositor_refresh = painted

    async def wait(self, query: str, after: float, timeout: float = 30.0) -> float:
        while query not in self.painted or self.painted[query] < after:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.painted[query]


def send_key(app: Any, ch: str) -> None:
    """What the terminal driver does for a typed character (pilot.press adds >= 40 ms
    of idle-waiting per key, which would swamp the measurement)."""
    from textual import events
    from textual.keys import _character_to_key

    key = ch if ch.isalnum() else _character_to_key(ch)
    app._driver.send_message(events.Key(key, ch))


async def keystrokes(root: Path, queries: list[str]) -> dict[str, object]:
    from rq_tui.app import PickerApp

    gc.freeze()  # as rq_tui.app.run does
    app = PickerApp(cwd=root, tune_gc=True)
    per_key: list[float] = []
    per_key_engine: list[float] = []
    burst: list[float] = []
    echo: list[float] = []
    per_key_cpu: list[float] = []
    samples: list[tuple[str, float, float, float, int]] = []  # prefix, wall, cpu, engine, hits
    async with app.run_test(size=SIZE) as pilot:
        picker = app.picker
        watch = PaintWatch(picker)
        query_input = picker.query_one("#query")
        await pilot.pause(1.0)  # past start-up work (index open, highlighter load)
        # Warm-up: the first search opens the index and fills SQLite's page cache.
        for ch in queries[0][:3]:
            send_key(app, ch)
        await watch.wait(queries[0][:3], 0.0)
        for q in queries:
            query_input.value = ""
            await pilot.pause(0.05)
            for i, ch in enumerate(q):
                t0, c0 = time.perf_counter(), time.process_time()
                send_key(app, ch)
                done = await watch.wait(q[: i + 1], t0)
                per_key.append((done - t0) * 1000)
                per_key_cpu.append((watch.cpu[q[: i + 1]] - c0) * 1000)
                samples.append(
                    (
                        q[: i + 1],
                        round(per_key[-1], 1),
                        round(per_key_cpu[-1], 1),
                        round(picker.engine_ms, 1),
                        len(picker.query_one("#results").hits),
                    )
                )
                echo.append((watch.echoed[q[: i + 1]] - t0) * 1000)
                watch.echoed.clear()
                per_key_engine.append(picker.engine_ms)
                await pilot.pause(0.01)  # a typist's gap: let the frame finish
        for q in queries:
            query_input.value = ""
            await pilot.pause(0.05)
            for ch in q[:-1]:
                send_key(app, ch)
            t0 = time.perf_counter()
            send_key(app, q[-1])
            done = await watch.wait(q, t0)
            burst.append((done - t0) * 1000)
        cancelled = sum(1 for t in picker.tokens if t.cancelled)
        searches = len(picker.tokens)
    return {
        "keystroke_ms": summary(per_key),
        "keystroke_cpu_ms": summary(per_key_cpu),
        "echo_ms": summary(echo),
        "engine_ms_same_keys": summary(per_key_engine),
        "burst_last_key_ms": summary(burst),
        "slowest": sorted(samples, key=lambda x: -x[1])[:12],
        "searches": searches,
        "cancelled": cancelled,
    }


def engine_alone(root: Path, queries: list[str]) -> dict[str, float]:
    """The peer: the same prefixes through Searcher.search in-process, no UI."""
    from rq_engine.search.pipeline import Searcher
    from rq_engine.store.db import connect

    conn = connect()
    s = Searcher(conn, root)
    xs: list[float] = []
    for q in queries:
        prefixes = [q[: i + 1] for i in range(len(q))]
        for p in prefixes:
            t0 = time.perf_counter()
            for _ in s.search(p, limit=50):
                pass
            xs.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return summary(xs)


# --- start-up to first frame -------------------------------------------------------


def first_frame_ms(
    argv: list[str], cwd: Path, needle: bytes, env: dict[str, str]
) -> tuple[float, float]:
    """(wall ms, CPU ms of the process) from spawn to `needle` on its terminal."""
    import fcntl
    import signal
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    t0 = time.perf_counter()
    p = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    buf = b""
    took = float("nan")
    try:
        while time.perf_counter() - t0 < 10:
            r, _, _ = select.select([master], [], [], 0.01)
            if r:
                try:
                    buf += os.read(master, 65536)
                except OSError:
                    break
                if needle in buf:
                    took = (time.perf_counter() - t0) * 1000
                    break
    finally:
        os.kill(p.pid, signal.SIGKILL)
        _, _, usage = os.wait4(p.pid, 0)
        p.returncode = -9
        os.close(master)
    return took, (usage.ru_utime + usage.ru_stime) * 1000


def startup(root: Path, runs: int, home: Path) -> dict[str, object]:
    env = {**os.environ, "RQ_HOME": str(home), "TERM": "xterm-256color"}
    rq: list[float] = []
    rq_cpu: list[float] = []
    fzf: list[float] = []
    for _ in range(runs):  # interleaved, so load hits both alike
        wall, cpu = first_frame_ms([RQ], root, b"F1 help", env)
        if wall == wall:
            rq.append(wall)
            rq_cpu.append(cpu)
        if HAVE_FZF:
            wall, _ = first_frame_ms(["fzf"], root, b"0/0", {**env, "FZF_DEFAULT_COMMAND": "true"})
            if wall == wall:
                fzf.append(wall)
    imports: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import rq_tui.app"], check=True, env=env)
        imports.append((time.perf_counter() - t0) * 1000)
    bare: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
        bare.append((time.perf_counter() - t0) * 1000)
    return {
        "rq_first_frame_ms": summary(rq),
        "rq_first_frame_cpu_ms": summary(rq_cpu),
        "fzf_first_frame_ms": summary(fzf) if HAVE_FZF else NO_FZF,
        "python_import_rq_tui_app_ms": summary(imports),
        "python_bare_start_ms": summary(bare),
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--home", type=Path, default=Path(os.environ.get("RQ_HOME") or DEFAULT_HOME))
    ap.add_argument("--corpora", default="django,gostd")
    ap.add_argument("--startup-runs", type=int, default=9)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--startup-only", action="store_true", help="skip the keystroke runs")
    a = ap.parse_args()
    os.environ["RQ_HOME"] = str(a.home)
    os.environ.setdefault("RQ_WARM_DETACH", "0")
    if not (a.home / "index.db").exists():
        print(f"no index at {a.home}/index.db: RQ_HOME={a.home} rq --index CORPUS", file=sys.stderr)
        return 64
    load = os.getloadavg()
    report: dict[str, object] = {
        "home": str(a.home),
        "loadavg_at_start": [round(x, 2) for x in load],
    }
    for spec in [] if a.startup_only else a.corpora.split(","):
        # `linux=kernel`: the linux tree, typed with the kernel corpus's public queries
        corpus, _, asked = spec.partition("=")
        root = CORPORA / corpus
        qs = queries_for(asked or corpus)
        print(f"== {corpus}: {len(qs)} queries, {sum(len(q) for q in qs)} keystrokes", flush=True)
        ui = asyncio.run(keystrokes(root, qs))
        peer = engine_alone(root, qs)
        ks = ui["keystroke_ms"]  # type: ignore[index]
        r = {
            **ui,
            "engine_alone_ms": peer,
            "ratio_p50_picker_over_engine": round(ks["p50"] / max(peer["p50"], 0.01), 2),
        }  # type: ignore[index]
        report[corpus] = r
        print(json.dumps(r, indent=2), flush=True)
    root = CORPORA / a.corpora.split(",")[0].partition("=")[0]
    print(f"== start-up to first frame ({root.name}, {a.startup_runs} runs)", flush=True)
    st = startup(root, a.startup_runs, a.home)
    report["startup"] = st
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(st, indent=2))
    print(f"load average at start {load[0]:.2f}, at end {os.getloadavg()[0]:.2f} (2 cores, shared)")
    if a.json:
        a.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
