"""Shared helpers for the indexer tests: open the index, dump it, compute ground truth."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from rq_engine.lang import registry
from rq_engine.store.db import connect

# (path, name, kind, line, end_line, parent)
Row = tuple[str, str, str, int, int | None, str | None]


@pytest.fixture
def db(isolated_home: Path) -> sqlite3.Connection:
    conn = connect()
    yield conn
    conn.close()


def dump(conn: sqlite3.Connection, repo_id: int | None = None) -> list[Row]:
    """The full symbol table of a repository (or all), sorted, in comparable form."""
    where, args = ("WHERE s.repository_id = ?", (repo_id,)) if repo_id else ("", ())
    rows = conn.execute(
        "SELECT f.path, s.name, s.kind, s.line, s.end_line, s.parent FROM symbols s "
        f"JOIN files f ON f.id = s.file_id {where}",
        args,
    ).fetchall()
    return sorted(tuple(r) for r in rows)


def truth(root: Path) -> list[Row]:
    """What the index must hold: every file git lists, parsed directly by its plugin."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    rows: list[Row] = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        lang = registry.language_for_path(path)
        full = root / path
        if lang is None or not full.is_file():
            continue
        for s in registry.plugin(lang).extract(full.read_bytes()):
            rows.append((path, s.name, str(s.kind), s.line, s.end_line, s.parent))
    return sorted(rows)


def fts_ok(conn: sqlite3.Connection) -> None:
    """The FTS index agrees with the symbols table, and all three triggers exist."""
    conn.execute("INSERT INTO symbols_fts(symbols_fts, rank) VALUES ('integrity-check', 1)")
    trig = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'symbols_fts_%'"
        )
    }
    assert trig == {"symbols_fts_ai", "symbols_fts_ad", "symbols_fts_au"}
    assert conn.execute("SELECT value FROM meta WHERE key = 'fts_suspended'").fetchone() is None


def index_stopped_at(root: Path, phase: str) -> subprocess.Popen[str]:
    """A real `rq --index ROOT` that stops itself (SIGSTOP) at the named point `phase` of
    its pass (RQ_INDEX_STOP_AT, rq_engine/index/crashpoints.py). The caller waits for
    it with `stopped`, acts, then SIGCONTs it and collects it (`p.communicate()`)."""
    from tests.conftest import rq_bin

    return subprocess.Popen(
        [*rq_bin(), "--index", str(root)],
        env={**os.environ, "RQ_INDEX_STOP_AT": phase},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal's shell delivers it: a suite started in the background
        # by a non-interactive shell inherits SIGINT ignored, and so would rq
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stopped(p: subprocess.Popen[str]) -> bool:
    """Wait (on the kernel's report, not a clock) until `p` stops itself at its phase.
    False if it ended instead; its exit code is then set."""
    _, status = os.waitpid(p.pid, os.WUNTRACED)
    if os.WIFSTOPPED(status):
        return True
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
    return False


def resumed(p: subprocess.Popen[str]) -> tuple[str, str]:
    """Let a stopped `p` go on (SIGCONT) and collect it: its stdout and stderr."""
    import signal

    if p.returncode is None:
        os.kill(p.pid, signal.SIGCONT)
    out, err = p.communicate(timeout=120)
    return out, err
