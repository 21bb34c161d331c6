"""A reader sees a consistent index while another process indexes (WAL + a transaction per batch)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable

from rq_engine.store.db import connect
from tests.conftest import ROOT, Repo

N_FILES = 30
N_DEFS = 4
ROUNDS = 6


def _version(v: int, i: int) -> str:
    return "".join(f"def v{v}_f{i}_{k}():\n    pass\n\n" for k in range(N_DEFS))


def test_reader_never_sees_a_half_written_file(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({f"m{i:02}.py": _version(0, i) for i in range(N_FILES)})
    # The writer: a separate process rewrites every file to version v and re-indexes,
    # one file per transaction, ROUNDS times.
    script = f"""
import os, sys, time
sys.path.insert(0, {str(ROOT)!r})
from pathlib import Path
from rq_engine.core.identity import checkout_for
from rq_engine.index.indexer import run_index
from rq_engine.store.db import connect
root = Path({str(repo.root)!r})
conn = connect()
co = checkout_for(root)
for v in range({ROUNDS}):
    for i in range({N_FILES}):
        text = "".join(f"def v{{v}}_f{{i}}_{{k}}():\\n    pass\\n\\n" for k in range({N_DEFS}))
        (root / f"m{{i:02}}.py").write_text(text)
    run_index(conn, co, workers=1, batch_files=1)
print("done")
"""
    writer = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    reader = connect(readonly=False)
    seen_versions: set[str] = set()
    reads = 0
    try:
        while writer.poll() is None or reads < 3:
            try:
                reader.execute("BEGIN")
                rows = reader.execute(
                    "SELECT f.path, s.name FROM files f JOIN symbols s ON s.file_id = f.id"
                ).fetchall()
                n_files = reader.execute("SELECT count(*) FROM files").fetchone()[0]
                reader.execute("COMMIT")
            except sqlite3.OperationalError as e:  # tables not created yet by the writer
                reader.execute("ROLLBACK") if reader.in_transaction else None
                assert "no such table" in str(e)
                time.sleep(0.005)
                continue
            reads += 1
            by_file: dict[str, list[str]] = {}
            for path, name in rows:
                by_file.setdefault(path, []).append(name)
            # every file row the snapshot shows has all of one version's names, never a mix or none
            assert len(by_file) == n_files
            for path, names in by_file.items():
                versions = {n.split("_")[0] for n in names}
                assert len(versions) == 1 and len(names) == N_DEFS, (path, names)
                i = int(path[1:3])
                assert sorted(names) == sorted(
                    f"{next(iter(versions))}_f{i}_{k}" for k in range(N_DEFS)
                )
                seen_versions |= versions
            time.sleep(0.002)
    finally:
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert reads > 3
    assert len(seen_versions) >= 2, "the reader never overlapped the writer"


def test_concurrent_writers_all_finish_and_agree(make_repo: Callable[..., Repo]) -> None:
    """Three `rq --index` processes at once (two on the same cold repo): every one exits 0,
    and the index equals the ground truth with the FTS table whole."""
    import os

    from tests.conftest import rq_bin
    from tests.index.conftest import dump, fts_ok, truth

    body = "".join(f"class C{k}:\n    def m{k}(self):\n        pass\n\n" for k in range(10))
    one = make_repo({f"d{i // 50}/a{i}.py": body for i in range(250)}, name="one", commit=False)
    two = make_repo({f"b{i}.py": body for i in range(60)}, name="two", commit=False)
    procs = [
        subprocess.Popen(
            [*rq_bin(), "--index", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for root in (one.root, one.root, two.root)
    ]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    conn = connect()
    fts_ok(conn)
    rows = dump(conn)
    assert [r for r in rows if r[0].startswith("d")] == truth(one.root)
    assert [r for r in rows if r[0].startswith("b")] == truth(two.root)
    from tests.index.test_derived import derived_whole

    derived_whole(conn)  # whichever pass ran cold, the derived tables came out whole
    conn.close()
