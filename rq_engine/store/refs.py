"""The canonical prior's data: which files name a definition by its qualifier.

Each indexed file's (qualifier, name) pairs (lang/_refs.py: `io.Reader`,
`ActiveRecord::Base`, `from x.models import Model`) are kept in `file_refs`, one
row a file (`qualifier<TAB>name` lines: a row per pair cost a cold Django pass
~30 ms more of the writer's time), and `ref_counts` holds, per repository, how many files name each pair. Both
change in the writer's transaction with the file's symbols: a file rewritten
takes its old pairs back out (decrement) before its new ones go in, a deleted
file takes them out, so the counts are exact after any sequence of writes (m011).
Stdlib only; knows no language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rq_engine.core.sqlite import sqlite3

Pair = tuple[str, str]  # (qualifier, name)


def forget(conn: sqlite3.Connection, file_ids: Iterable[int]) -> None:
    """Take these files' pairs out of the counts and drop them."""
    for fid in file_ids:
        row = conn.execute(
            "DELETE FROM file_refs WHERE file_id = ? RETURNING repository_id, pairs", (fid,)
        ).fetchone()
        if row is None:
            continue
        conn.executemany(
            "UPDATE ref_counts SET files = files - 1 "
            "WHERE repository_id = ? AND name = ? AND qualifier = ?",
            [(row[0], n, q) for q, n in decode(row[1])],
        )


def encode(pairs: Iterable[Pair]) -> str:
    return "\n".join(f"{q}\t{n}" for q, n in pairs)


def decode(text: str) -> list[Pair]:
    """`encode`'s inverse (a qualifier or name never holds a tab or a newline: both
    are identifiers)."""
    out: list[Pair] = []
    for line in text.split("\n"):
        q, _, n = line.partition("\t")
        if n:
            out.append((q, n))
    return out


def add(
    conn: sqlite3.Connection, repository_id: int, items: Sequence[tuple[int, Sequence[Pair]]]
) -> None:
    """Record each (file id, its distinct pairs) and count them in: one upsert per
    distinct pair of the batch, by how many of its files name it (a cold batch's
    files share most pairs: Django's 16k are 4.5k distinct)."""
    if not items:
        return
    conn.executemany(
        "INSERT INTO file_refs(file_id, repository_id, pairs) VALUES (?, ?, ?)",
        [(fid, repository_id, encode(pairs)) for fid, pairs in items],
    )
    per_pair: dict[Pair, int] = {}
    for _, pairs in items:
        for pair in pairs:
            per_pair[pair] = per_pair.get(pair, 0) + 1
    conn.executemany(
        "INSERT INTO ref_counts(repository_id, name, qualifier, files) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(repository_id, name, qualifier) DO UPDATE SET files = files + excluded.files",
        [(repository_id, n, q, k) for (q, n), k in per_pair.items()],
    )


def drop_repository(conn: sqlite3.Connection, repository_id: int) -> None:
    conn.execute("DELETE FROM file_refs WHERE repository_id = ?", (repository_id,))
    conn.execute("DELETE FROM ref_counts WHERE repository_id = ?", (repository_id,))


def counts(
    conn: sqlite3.Connection, repository_id: int, names: Sequence[str]
) -> dict[str, dict[str, int]]:
    """name -> {qualifier: how many files name `qualifier<sep>name`}, for the names
    any file names (one indexed read per 500 names)."""
    out: dict[str, dict[str, int]] = {}
    for i in range(0, len(names), 500):
        chunk = names[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for n, q, f in conn.execute(
            "SELECT name, qualifier, files FROM ref_counts WHERE repository_id = ? "
            f"AND name IN ({marks}) AND files > 0",
            (repository_id, *chunk),
        ):
            out.setdefault(str(n), {})[str(q)] = int(f)
    return out
