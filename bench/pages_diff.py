#!/usr/bin/env python3
"""Pages before and after: does a change leave every answer as it was?

A change meant not to move the ranking (a speed-up, a bound on what is read) is
checked here: every query runs in process (`Searcher.search`, as every face's
final batch) in this tree and in another (`--against DIR`, e.g. `git archive
BEFORE | tar -x -C DIR`), over the same index, and the pages — path, line and
score of each hit, in order — are compared at each `--limits` size. Prints how
many queries differ and the first few differences.

Queries, per corpus: the judged public queries and every prefix of each (what a
picker asks while it is typed: one-letter and crowded prefixes included), plus,
with `--perturbed FILE`, every variant of a `bench/perturb.py --json` report
(typos, abbreviations, separators: ~15k queries over the 13 corpora).
`--queries-of CORPUS` asks one corpus's queries in the corpora given (the kernel
slice's in the whole Linux tree: `--corpora linux --queries-of kernel`).

Usage:
  RQ_HOME=/root/.cache/rq-bench/home bench/pages_diff.py --against DIR
      [--corpora django,gostd] [--limits 10,50] [--perturbed /tmp/ptp.json]
  RQ_HOME=/tmp/linux-home bench/pages_diff.py --against DIR --corpora linux --queries-of kernel
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RQ_SHARED", ROOT.parent / "shared"))
if not (SHARED / "bench").is_dir():
    SHARED = Path("/work/shared")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
JUDGED = ("queries-public.jsonl", "queries-public-c-cpp-java-php.jsonl")


def queries(corpora: list[str], of: str | None, perturbed: str | None) -> dict[str, list[str]]:
    """corpus -> its queries, sorted (the same list for both trees)."""
    out: dict[str, set[str]] = {c: set() for c in corpora}
    for name in JUDGED:
        for line in open(SHARED / "bench" / name, encoding="utf-8"):
            if not line.strip():
                continue
            q = json.loads(line)
            for corpus in corpora:
                if q["corpus"] == (of or corpus):
                    text = str(q["query"])
                    out[corpus].update(text[:i] for i in range(1, len(text) + 1))
    if perturbed:
        for case in json.load(open(perturbed, encoding="utf-8"))["cases"]:
            for corpus in corpora:
                if case["corpus"] == (of or corpus):
                    out[corpus].add(str(case["query"]))
    return {c: sorted(qs) for c, qs in out.items()}


def pages(tree: Path, todo: dict[str, list[str]], limits: list[int]) -> dict[str, list[str]]:
    """Every query's page at every limit, computed by `tree`'s engine in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        spec, result = Path(tmp) / "todo.json", Path(tmp) / "pages.json"
        spec.write_text(json.dumps({"todo": todo, "limits": limits, "corpora": str(CORPORA)}))
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run(
            [sys.executable, "-P", __file__, "--worker", str(spec), str(result)],
            env=env,
            check=True,
        )
        got: dict[str, list[str]] = json.loads(result.read_text())
        return got


def worker(spec_path: str, out_path: str) -> None:
    import sqlite3

    from rq_engine.search.pipeline import Searcher

    spec = json.loads(Path(spec_path).read_text())
    home = Path(os.environ.get("RQ_HOME", Path.home() / ".local" / "share" / "rq"))
    conn = sqlite3.connect(f"file:{home / 'index.db'}?mode=ro", uri=True)
    out: dict[str, list[str]] = {}
    for corpus, qs in spec["todo"].items():
        s = Searcher(conn, str(Path(spec["corpora"]) / corpus))
        for q in qs:
            for limit in spec["limits"]:
                final = None
                for batch in s.search(q, limit=limit):
                    if batch.final:
                        final = batch
                hits = final.hits if final is not None else []
                out[f"{corpus}\t{limit}\t{q}"] = [
                    f"{h.path}:{h.line} {h.score.total}" for h in hits
                ]
    Path(out_path).write_text(json.dumps(out))


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
        return 0
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--against", type=Path, required=True, help="the other source tree")
    ap.add_argument("--corpora", default="django,gostd", help="comma-separated")
    ap.add_argument("--limits", default="10,50", help="page sizes, comma-separated")
    ap.add_argument("--perturbed", help="a bench/perturb.py --json report: its variants too")
    ap.add_argument("--queries-of", metavar="CORPUS", help="this corpus's queries in each corpus")
    ap.add_argument("--show", type=int, default=5, help="differences printed")
    a = ap.parse_args()
    corpora = [c for c in a.corpora.split(",") if c]
    limits = [int(n) for n in a.limits.split(",") if n]
    todo = queries(corpora, a.queries_of, a.perturbed)
    mine = pages(ROOT, todo, limits)
    theirs = pages(a.against.resolve(), todo, limits)
    differ = sorted(k for k in mine if mine[k] != theirs.get(k))
    n = sum(len(qs) for qs in todo.values())
    print(f"{n} queries x {len(limits)} page sizes over {', '.join(corpora)}: {len(differ)} differ")
    for key in differ[: a.show]:
        corpus, limit, q = key.split("\t")
        print(f"  {corpus} --limit {limit} {q!r}")
        print(f"    here:    {mine[key][:3]}")
        print(f"    against: {theirs.get(key, [])[:3]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
