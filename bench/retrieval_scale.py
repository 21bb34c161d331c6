#!/usr/bin/env python3
"""Fuzzy retrieval at Linux scale: candidate recall and latency on millions of real names.

There is no C plugin, so the store is synthetic-but-real: `ctags -R` output of
large trees (Linux, rustc) inserted as symbol rows into a scratch index built
with rq's own schema and migrations; the derived `names` table is
filled by the same `store.derived.drain` the indexer calls. Then, for queries
made from real names (prefix, camel/underscore abbreviation, dropped vowels, a
swap of neighbouring letters), it reports:

  * candidate recall: is the intended name among what the layer retrieves?
  * final recall: is a definition of it in the Searcher's top 10?
  * latency of the whole in-process search (p50 / p95 / max).

Usage:
  ctags -R --fields=+nK -f linux.tags /path/to/linux
  bench/retrieval_scale.py --tags linux.tags --tags rustc.tags --db /tmp/scale/index.db
  bench/retrieval_scale.py --db /tmp/scale/index.db   # reuse a built store

Timing on a shared machine is noisy: it prints medians and p95 over every query.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq_engine.core.query import fold  # noqa: E402
from rq_engine.core.scoring import skeleton, tokens  # noqa: E402
from rq_engine.search import nearmiss as nm  # noqa: E402
from rq_engine.search import retrieval as rt  # noqa: E402
from rq_engine.search.fuzzy import FUZZY_MATCH, FUZZY_NAMES, SKELETON_NAMES  # noqa: E402
from rq_engine.search.layers import TYPO_NAMES  # noqa: E402
from rq_engine.search.pipeline import Searcher  # noqa: E402
from rq_engine.search.rank import PREFIX_NAMES  # noqa: E402
from rq_engine.store import derived  # noqa: E402
from rq_engine.store.db import connect  # noqa: E402

KINDS = {
    "function": "function",
    "prototype": "function",
    "struct": "struct",
    "union": "union",
    "enum": "enum",
    "typedef": "type",
    "macro": "macro",
    "member": "field",
    "enumerator": "constant",
    "variable": "variable",
    "method": "method",
    "implementation": "class",
    "trait": "trait",
    "module": "module",
    "constant": "constant",
    "field": "field",
    "class": "class",
}


def build(db: Path, tag_files: list[str]) -> None:
    if db.exists():
        db.unlink()
    conn = connect(db)
    t0 = time.perf_counter()
    # the indexer's cold-pass move: no per-row FTS trigger, one fill at the end
    trig = dict(
        conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type='trigger' AND name LIKE 'symbols_fts_%'"
        )
    )
    for name in trig:
        conn.execute(f'DROP TRIGGER "{name}"')
    n_sym = 0
    for rid, tf in enumerate(tag_files, 1):
        root = f"/scale/{Path(tf).stem}"
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO repositories(id, identity, created_at, updated_at) VALUES (?, ?, 0, 0)",
            (rid, f"local:{root}"),
        )
        conn.execute("INSERT INTO checkouts(repository_id, root_path) VALUES (?, ?)", (rid, root))
        files: dict[str, int] = {}
        batch: list[tuple[object, ...]] = []
        with open(tf, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("!_TAG_"):
                    continue
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 4:
                    continue
                name, path = parts[0], parts[1]
                if not name or " " in name:
                    continue
                kind, lno = "", 1
                for field in parts[3:]:
                    if field.startswith("kind:"):
                        kind = field[5:]
                    elif field.startswith("line:"):
                        lno = int(field[5:] or 1)
                k = KINDS.get(kind)
                if k is None:
                    continue
                fid = files.get(path)
                if fid is None:
                    fid = conn.execute(
                        "INSERT INTO files(repository_id, path, language) VALUES (?, ?, ?)",
                        (rid, path, "c" if path.endswith((".c", ".h")) else "rust"),
                    ).lastrowid
                    assert fid is not None
                    files[path] = fid
                batch.append((rid, fid, name, name.lower(), k, "c", lno))
                if len(batch) >= 50000:
                    conn.executemany(
                        "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        batch,
                    )
                    n_sym += len(batch)
                    batch = []
        if batch:
            conn.executemany(
                "INSERT INTO symbols(repository_id, file_id, name, name_lower, kind, language, line)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                batch,
            )
            n_sym += len(batch)
        conn.execute(
            "INSERT INTO coverage(repository_id, scope, status) VALUES (?, 'full', 'complete')",
            (rid,),
        )
        conn.execute("COMMIT")
    t1 = time.perf_counter()
    conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('rebuild')")
    for sql in trig.values():
        conn.execute(sql)
    t2 = time.perf_counter()
    derived.drain(conn)
    t3 = time.perf_counter()
    conn.execute("ANALYZE")
    names = conn.execute("SELECT count(*) FROM names").fetchone()[0]
    print(
        f"built {db}: {n_sym} symbols, {names} distinct names;"
        f" rows {t1 - t0:.0f}s, fts {t2 - t1:.0f}s, derived names {t3 - t2:.0f}s,"
        f" {db.stat().st_size / 1e6:.0f} MB"
    )
    conn.close()


def make_queries(names: list[str], n: int, seed: int = 7) -> dict[str, list[tuple[str, str]]]:
    rnd = random.Random(seed)
    multi = [x for x in names if len(tokens(x)) >= 2 and 8 <= len(x) <= 30 and x.isascii()]
    single = [x for x in names if 6 <= len(x) <= 30 and x.isascii() and x.isidentifier()]
    rnd.shuffle(multi)
    rnd.shuffle(single)
    out: dict[str, list[tuple[str, str]]] = {"prefix": [], "abbrev": [], "subseq": [], "typo": []}
    for name in single[:n]:
        f = fold(name)
        out["prefix"].append((name[: max(4, int(len(name) * 0.6))], name))
    for name in multi[: n * 3]:
        toks = tokens(name)[:3]
        q = "".join(t[:3] for t in toks)
        if len(q) >= 4 and len(out["abbrev"]) < n:
            out["abbrev"].append((q, name))
    for name in single[n : n * 4]:
        sk = skeleton(name)
        if len(sk) >= 4 and sk != fold(name) and len(out["subseq"]) < n:
            out["subseq"].append((sk, name))
    for name in single[n * 4 : n * 8]:
        f = fold(name)
        for i in range(2, len(f) - 2):
            if f[i] != f[i + 1] and f[i].isalpha() and f[i + 1].isalpha():
                out["typo"].append((f[:i] + f[i + 1] + f[i] + f[i + 2 :], name))
                break
        if len(out["typo"]) >= n:
            break
    return out


def candidates(conn: sqlite3.Connection, rid: int, category: str, q: str) -> set[str]:
    """The distinct names the pipeline's layers would hand to the matcher for `q`."""
    qf = fold(q)
    got: set[str] = set(rt.names_fold_prefix(conn, rid, qf, PREFIX_NAMES))
    if category in ("abbrev", "subseq", "typo"):
        scan = rt.names_first_letter_scan(conn, rid, qf, FUZZY_NAMES)
        scan += rt.names_by_initials(conn, rid, qf, FUZZY_NAMES)
        scan += rt.names_skeleton_prefix(conn, rid, skeleton(q), SKELETON_NAMES)
        # the pipeline matches only the shortest FUZZY_MATCH of these
        got |= set(sorted(dict.fromkeys(scan), key=lambda n: (len(n), n))[:FUZZY_MATCH])
    if category == "typo":
        got |= set(nm.names_typo(conn, rid, qf, TYPO_NAMES))
    return got


def measure(db: Path, n: int) -> None:
    conn = connect(db)
    repos = conn.execute(
        "SELECT r.id, c.root_path FROM repositories r JOIN checkouts c ON c.repository_id = r.id"
    ).fetchall()
    print(
        f"{'repo':10} {'category':8} {'n':>3} {'cand.recall':>11} {'top10':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}"
    )
    for rid, root in repos:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM names WHERE repository_id = ? ORDER BY id", (rid,)
            )
        ]
        s = Searcher(conn, Path(root))
        s.repo_id, s.repo_ids = rid, [rid]  # the scratch checkout root does not exist on disk
        s.roots = {rid: root}
        s.idents = {rid: root}
        s.projects = {rid: Path(root).name}
        for cat, qs in make_queries(names, n).items():
            rec = top = 0
            times: list[float] = []
            for q, want in qs:
                if want in candidates(conn, rid, cat, q):
                    rec += 1
                t = time.perf_counter()
                final = None
                for b in s.search(q, limit=10):
                    final = b
                times.append((time.perf_counter() - t) * 1000)
                if final and any(h.name == want for h in final.hits):
                    top += 1
            times.sort()
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(
                f"{Path(root).name:10} {cat:8} {len(qs):3d} {rec / max(len(qs), 1):11.2f}"
                f" {top / max(len(qs), 1):6.2f} {statistics.median(times):7.1f} {p95:7.1f} {times[-1]:7.1f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--tags", action="append", default=[], help="ctags file (repeat); builds the store"
    )
    ap.add_argument("--db", required=True, type=Path, help="scratch index path")
    ap.add_argument("-n", type=int, default=40, help="queries per category per repository")
    a = ap.parse_args()
    if a.tags:
        build(a.db, a.tags)
    measure(a.db, a.n)


if __name__ == "__main__":
    main()
