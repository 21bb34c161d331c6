#!/usr/bin/env python3
"""What a value object costs at start-up: core/record.Record against dataclasses, same run.

Two measures, each beside its peer:
  class build  (in process) a Record subclass written by hand (`__slots__` and
               `__init__`), one built from annotations (search/types.Hit's 14
               fields, 4 defaults) and the same fields as
               `@dataclasses.dataclass(slots=True)`;
  import       (fresh interpreters, interleaved, bytecode cached under /tmp)
               `rq_engine.core.record` and `dataclasses`; with `--against DIR`
               also the hot path's and the indexer's imports
               (`rq_engine.search.service`, `rq_engine.index.indexer`) from this
               tree and from DIR, another checkout's tree (the one before a change).

Usage: .venv/bin/python bench/record_build.py [--rounds 60] [--against DIR]
A shared, loaded machine stretches wall times: read the minimums and the ratios.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq_engine.core.record import Record  # noqa: E402

HIT = {
    **dict.fromkeys(("root", "path", "name", "qualified", "kind", "language", "repository"), "str"),
    **{"line": "int", "end_line": "int | None", "score": "Score"},
}
DEFAULTS = {"layer": "exact", "positions": (), "visibility": "unknown", "parent": None}
FIELDS = {**HIT, **dict.fromkeys(DEFAULTS, "object")}


def _hand_init(self: object, a: object, b: object, c: object, d: object) -> None:
    self.a, self.b, self.c, self.d = a, b, c, d  # type: ignore[attr-defined]


def build_hand() -> type:
    ns = {"__slots__": ("a", "b", "c", "d"), "__init__": _hand_init, "__qualname__": "C"}
    return type(Record)("C", (Record,), ns)


def build_record() -> type:
    ns = {"__annotations__": dict(FIELDS), "__qualname__": "Hit", **DEFAULTS}
    return type(Record)("Hit", (Record,), ns)


def build_dataclass() -> type:
    ns = {"__annotations__": dict(FIELDS), "__qualname__": "Hit", "__module__": __name__}
    return dataclasses.dataclass(slots=True)(type("Hit", (), {**ns, **DEFAULTS}))


def per_class_us(build: object, rounds: int, number: int = 100) -> list[float]:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(number):
            build()  # type: ignore[operator]
        out.append((time.perf_counter() - t) / number * 1e6)
    return out


def import_ms(module: str, tree: Path, rounds: int) -> list[float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    env["PYTHONPYCACHEPREFIX"] = f"/tmp/rq-bench-pyc/{str(tree).strip('/').replace('/', '_')}"
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = []
    for _ in range(rounds):
        run = subprocess.run([sys.executable, "-c", code], env=env, cwd="/tmp", capture_output=True)
        out.append(float(run.stdout) * 1e3)
    return out


def line(label: str, values: list[float], unit: str, peer: list[float] | None = None) -> str:
    low, mid = min(values), statistics.median(values)
    ratio = f"  x{mid / statistics.median(peer):.2f} of the peer's median" if peer else ""
    return f"  {label:44s} min {low:7.2f} {unit}  median {mid:7.2f} {unit}{ratio}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument(
        "--against", type=Path, help="another tree (holding rq_engine/) to compare imports with"
    )
    a = ap.parse_args()

    print("class build (per class):")
    dc = per_class_us(build_dataclass, a.rounds)
    print(line("dataclass(slots=True), Hit's fields (peer)", dc, "us"))
    print(
        line(
            "Record from annotations, Hit's fields", per_class_us(build_record, a.rounds), "us", dc
        )
    )
    print(line("Record written by hand, 4 slots", per_class_us(build_hand, a.rounds), "us", dc))

    print("import (fresh interpreter):")
    res: dict[tuple[str, Path], list[float]] = {}
    pairs = [("dataclasses", ROOT), ("rq_engine.core.record", ROOT)]
    if a.against is not None:
        for mod in ("rq_engine.search.service", "rq_engine.index.indexer"):
            pairs += [(mod, a.against.resolve()), (mod, ROOT)]
    for _ in range(a.rounds):  # interleaved: load drifts alike for both sides
        for mod, tree in pairs:
            res.setdefault((mod, tree), []).extend(import_ms(mod, tree, 1))
    peer = res[("dataclasses", ROOT)]
    print(line("dataclasses (peer)", peer, "ms"))
    print(line("rq_engine.core.record", res[("rq_engine.core.record", ROOT)], "ms", peer))
    if a.against is not None:
        for mod in ("rq_engine.search.service", "rq_engine.index.indexer"):
            before = res[(mod, a.against.resolve())]
            print(line(f"{mod} @{a.against}", before, "ms"))
            print(line(f"{mod} (this tree)", res[(mod, ROOT)], "ms", before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
