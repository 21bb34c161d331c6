#!/usr/bin/env python3
"""What the `names` table costs a cold pass's writer, and what each of its indexes adds.

A cold pass writes one `names` row per distinct name (store/derived.ColdNames,
a batch's new names sorted), with four B-trees behind it: the table, its
UNIQUE(repository_id, name), and the fold, skeleton and initials+fold indexes
the fuzzy retrieval reads. On the kernel slice that is ~172k rows, most of the
writer's SQLite time. This inserts the names of an existing index's largest
repository (their keys derived by today's core/namekeys) into scratch databases
with the schema as it is (read from the index), in `--batches` transactions like
a cold pass, and prints the CPU seconds and size for:

  order   random (one row at a time as files come), per-batch sorted (what the
          writer does), globally sorted (a lower bound: every name known first)
  schema  as stored; without each secondary index in turn; the table alone

Usage: .venv/bin/python bench/names_writes.py --home RQ_HOME [--limit 180000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rq_engine.core.namekeys import name_record  # noqa: E402

Record = tuple[str, str, str, str]


def load(home: Path, limit: int) -> tuple[list[Record], str, list[str]]:
    src = sqlite3.connect(f"file:{home / 'index.db'}?mode=ro", uri=True)
    repo = src.execute(
        "SELECT repository_id FROM names GROUP BY repository_id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    if repo is None:
        raise SystemExit(f"bench/names_writes.py: no names in {home / 'index.db'}")
    names = [
        str(r[0])
        for r in src.execute(
            "SELECT name FROM names WHERE repository_id = ? LIMIT ?", (repo[0], limit)
        )
    ]
    table = str(src.execute("SELECT sql FROM sqlite_master WHERE name = 'names'").fetchone()[0])
    table = table.replace("REFERENCES repositories(id) ON DELETE CASCADE", "")
    indexes = [
        str(r[0])
        for r in src.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'names'"
            " AND sql IS NOT NULL ORDER BY name"
        )
    ]
    return [name_record(n) for n in names], table, indexes


def insert(records: list[Record], ddl: list[str], batches: int, order: str) -> tuple[float, int]:
    rows = list(records)
    if order == "global":
        rows.sort()
    else:  # (files come in no name order: the source index's own order is a pass's)
        random.Random(1).shuffle(rows)
    with tempfile.TemporaryDirectory(prefix="rq-names-") as d:
        path = os.path.join(d, "names.db")
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -65536")  # index/indexer.WRITER_CACHE_KIB
        for sql in ddl:
            conn.execute(sql)
        step = len(rows) // batches + 1
        t = time.process_time()
        for i in range(0, len(rows), step):
            batch = rows[i : i + step]
            if order == "batch":
                batch.sort()
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT OR IGNORE INTO names(repository_id, name, fold, skel, ini)"
                " VALUES (1, ?, ?, ?, ?)",
                batch,
            )
            conn.execute("COMMIT")
        conn.close()
        return time.process_time() - t, os.path.getsize(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--home", type=Path, required=True, help="an RQ_HOME whose index to read names from"
    )
    ap.add_argument("--limit", type=int, default=180_000)
    ap.add_argument(
        "--batches", type=int, default=13, help="transactions (the kernel slice's cold pass: 13)"
    )
    ap.add_argument("--rounds", type=int, default=2)
    ns = ap.parse_args()
    records, table, indexes = load(ns.home, ns.limit)
    print(f"{len(records)} names, {ns.batches} batches, best of {ns.rounds} rounds\n")
    schemas = [("as stored", [table, *indexes])]
    for ix in indexes:
        schemas.append((f"without {ix.split()[2]}", [table, *(i for i in indexes if i != ix)]))
    schemas.append(("the table alone", [table]))
    print("| schema | order | CPU s | size MB |")
    print("|---|---|---:|---:|")
    for label, ddl in schemas:
        orders = ("random", "batch", "global") if label == "as stored" else ("batch",)
        for order in orders:
            got = [insert(records, ddl, ns.batches, order) for _ in range(ns.rounds)]
            cpu = min(g[0] for g in got)
            print(f"| {label} | {order} | {cpu:.2f} | {got[0][1] / 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
