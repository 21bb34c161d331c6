"""Scoped queries mistyped: the public sets' `scoped` answers, asked with a slip in the leaf.

    RQ_HOME=~/.cache/rq-bench/home .venv/bin/python bench/scoped_typos.py RQ [RQ ...]

For every judged `scoped` query of the public sets whose leaf has five letters or
more (`Manager.get_queryset`, `Builder::where`), each variant of its leaf with one
letter left out (not the first), two neighbours swapped (not the first), or the
last two letters missing, keeping the scope as typed. Every RQ (an `rq`
executable: two trees side by side, same index) answers each variant as a whole
`rq -q --limit 10 --json` process with cwd = the corpus, as shared/bench/relevance.py
runs it; a result is right when it names an expected path within ±1 line.
Prints S@1 and R@5 per RQ, then every variant the RQs rank differently.

perturb.py asks for unscoped names only; this is the same idea for the scope
layer, whose retries (scope typo, the leaf alone) decide these queries.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RQ_SHARED", ROOT.parent / "shared")) / "bench"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/bench")
SETS = ("queries-public.jsonl", "queries-public-c-cpp-java-php.jsonl")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
#: a scoped query: the scope as typed, then its leaf (`Foo::Bar#baz`, `a.b`, `A\B`)
SPLIT = re.compile(r"(.*(?:::|\.|#|\\))([A-Za-z_][A-Za-z0-9_?!]*)$")
MIN_LEAF = 5

Case = tuple[str, str, list[dict[str, object]]]  # corpus, query, expected answers


def variants(leaf: str) -> set[str]:
    """The leaf with a letter left out, two neighbours swapped, its last two gone."""
    out = {leaf[:i] + leaf[i + 1 :] for i in range(1, len(leaf))}
    out |= {leaf[:i] + leaf[i + 1] + leaf[i] + leaf[i + 2 :] for i in range(1, len(leaf) - 1)}
    out.add(leaf[:-2])
    out.discard(leaf)  # (a swap of two equal letters)
    return out


def cases() -> list[Case]:
    found: list[Case] = []
    for name in SETS:
        for line in (SHARED / name).read_text().splitlines():
            d = json.loads(line)
            m = SPLIT.search(d["query"])
            if d["category"] != "scoped" or not d.get("expect") or m is None:
                continue
            head, leaf = m.groups()
            if len(leaf) >= MIN_LEAF:
                found += [(d["corpus"], head + v, d["expect"]) for v in sorted(variants(leaf))]
    return found


def rank(rq: str, case: Case) -> int:
    """The 1-based rank of the first right answer; 99 when none in ten (or an error)."""
    corpus, query, expect = case
    p = subprocess.run(
        [rq, "-q", "--limit", "10", "--json", query],
        cwd=CORPORA / corpus,
        capture_output=True,
        text=True,
    )
    try:
        hits = json.loads(p.stdout)["results"]
    except (ValueError, KeyError):
        return 99
    for i, h in enumerate(hits):
        if any(h["path"] == e["path"] and abs(h["line"] - int(e["line"])) <= 1 for e in expect):
            return i + 1
    return 99


def main(rqs: list[str]) -> int:
    if not rqs:
        print("usage: scoped_typos.py RQ [RQ ...]", file=sys.stderr)
        return 2
    todo = cases()
    with ThreadPoolExecutor(2) as ex:
        ranks = list(ex.map(lambda c: [rank(rq, c) for rq in rqs], todo))
    print(f"{len(todo)} variants")
    for i, rq in enumerate(rqs):
        s1 = sum(r[i] == 1 for r in ranks) / len(ranks)
        r5 = sum(r[i] <= 5 for r in ranks) / len(ranks)
        print(f"{rq}: S@1 {s1:.3f}  R@5 {r5:.3f}")
    for c, r in zip(todo, ranks, strict=True):
        if len(set(r)) > 1:
            print(f"  {c[0]:8} {c[1]:40} {' -> '.join(map(str, r))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
