"""Fault qualification of the persisted bm25-v1 cache (#11 item 7): a builder killed at
each publication phase, stale temporaries, a cache root that cannot be written,
limits, corrupt, incomplete, unknown and mismatched generations. Whatever happened,
the next `rq --text` answers exactly what a full rebuild answers (never an error,
never a stale or mixed answer), and says how it was served.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rq_engine.store import db
from rq_engine.text import source
from rq_engine.text.cache import manager
from rq_engine.text.cache.manifest import Limits
from tests.conftest import Repo
from tests.text.test_cache_delta import (
    FRESH,
    RQ,
    ask,
    cache_dir,
    cache_shop,
    current_generation,
    recompute_aggregates,
    same_generation,
)

QUERY = "refund"


@pytest.fixture
def shop(make_repo: Callable[..., Repo], rq: RQ) -> Repo:
    return cache_shop(make_repo, rq)


PHASES = ("staged", "complete", "renamed", "pointed")


def reference(rq: RQ, repo: Repo, tmp: Path, name: str, words: str = QUERY) -> dict[str, Any]:
    """What a full build from scratch answers now (a cache root of its own)."""
    st, doc = ask(rq, repo, words, tmp / name)
    assert st["state"] == "rebuilt", st
    return doc


def files(d: Path, prefix: str) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith(prefix))


def rename_refund_ledger(repo: Repo) -> None:
    p = repo.root / "shop/payments.py"
    p.write_text(p.read_text().replace("refund_ledger", "refund_journal"), encoding="utf-8")


# --- a builder killed at each publication phase ---------------------------------------------


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("build", ["first", "delta"])
def test_a_builder_killed_at_each_phase_leaves_old_or_new_never_a_mix(
    shop: Repo, rq: RQ, tmp_path: Path, phase: str, build: str
) -> None:
    cache = tmp_path / "c"
    old = None
    if build == "delta":
        st, before = ask(rq, shop, QUERY, cache)
        assert st["state"] == "rebuilt"
        old = current_generation(cache).name
        rename_refund_ledger(shop)
    p = rq(
        "--text", QUERY, "--ranker", "text-ranker/bm25-v1", "--json",
        cwd=shop.root, env={**FRESH, "RQ_CACHE": str(cache), "RQ_TEXT_CACHE_KILL_AT": phase},
    )  # fmt: skip
    assert p.code == -9, (p.code, p.err)
    assert p.out == ""  # killed before it answered: nothing half-written to stdout
    d = cache_dir(cache)
    tmps = files(d, "tmp-")
    gens = files(d, "g-") + files(d, "d-")  # bases and overlays
    named = (d / "current").read_text().strip() if (d / "current").exists() else None
    if phase in ("staged", "complete"):
        assert len(tmps) == 1 and named == old, (tmps, named)
    elif phase == "renamed":
        assert tmps == [] and named == old and len(gens) == (1 if old is None else 2)
    else:
        assert tmps == [] and named is not None and named != old and named in gens
    published = named

    want = reference(rq, shop, tmp_path, "fresh")
    st, got = ask(rq, shop, QUERY, cache)
    assert got == want  # the new state, whatever the kill left
    if build == "delta":
        assert "refund_journal" in {r["name"] for r in got["results"]}
        assert "refund_ledger" not in {r["name"] for r in got["results"]}
    if phase == "pointed":
        assert st["state"] == "hit" and st["generation"] == published
    else:
        assert st["state"] == ("rebuilt" if build == "first" else "delta"), st
    assert files(d, "tmp-") == []  # the dead builder's leftovers went with the next build
    same_generation(current_generation(cache), current_generation(tmp_path / "fresh"))
    again = ask(rq, shop, QUERY, cache)
    assert again[0]["state"] == "hit" and again[1] == want


def test_stale_temporaries_are_removed_and_a_live_builders_kept(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    d = cache_dir(cache)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(gone.stdout)  # a pid whose process has exited
    shutil.copyfile(current_generation(cache), d / f"tmp-{dead}-0badc0de.db")  # a whole copy
    (d / f"tmp-{dead}-00000001.db").write_bytes(b"half a file")
    live = d / f"tmp-{os.getpid()}-0000abcd.db"  # a builder that is still running (us)
    live.write_bytes(b"")
    (d / "current.12345.tmp").write_text("g-9-deadbeef.db\n")  # a pointer never renamed
    rename_refund_ledger(shop)
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "delta" and got == reference(rq, shop, tmp_path, "fresh")
    assert files(d, "tmp-") == [live.name]
    assert not (d / "current.12345.tmp").exists()


# --- a cache that cannot be written -------------------------------------------------------


def test_a_read_only_cache_root_answers_from_memory(shop: Repo, rq: RQ, tmp_path: Path) -> None:
    root = tmp_path / "ro"
    root.mkdir()
    root.chmod(0o555)
    try:
        if os.access(root, os.W_OK):
            pytest.skip("chmod does not keep this user out (root)")
        r = rq(
            "--text", QUERY, "--ranker", "text-ranker/bm25-v1", "--json", "--explain",
            cwd=shop.root, env={**FRESH, "RQ_CACHE": str(root)},
        )  # fmt: skip
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        st = doc.pop("cache")
        assert st["state"] == "memory" and st["note"], st
        assert doc == reference(rq, shop, tmp_path, "fresh")
        assert list(root.iterdir()) == []
    finally:
        root.chmod(0o755)


def test_a_read_only_generation_directory_still_serves_hits_and_memory_after_an_edit(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    d = cache_dir(cache)
    d.chmod(0o555)
    try:
        if os.access(d, os.W_OK):
            pytest.skip("chmod does not keep this user out (root)")
        st, _ = ask(rq, shop, QUERY, cache)
        assert st["state"] == "hit"  # serving needs no write
        rename_refund_ledger(shop)
        st, got = ask(rq, shop, QUERY, cache)
        assert st["state"] == "memory" and st["note"], st
        assert got == reference(rq, shop, tmp_path, "fresh")
    finally:
        d.chmod(0o755)


def test_a_cache_root_that_cannot_be_made_answers_from_memory(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    """The same as a read-only root, for any user: the root's parent is a regular file."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    r = rq(
        "--text", QUERY, "--ranker", "text-ranker/bm25-v1", "--json", "--explain",
        cwd=shop.root, env={**FRESH, "RQ_CACHE": str(blocker / "cache")},
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "Traceback" not in r.err
    doc = json.loads(r.out)
    st = doc.pop("cache")
    assert st["state"] == "memory" and st["note"], st
    assert doc == reference(rq, shop, tmp_path, "fresh")
    h = rq(
        "--text", QUERY, "--ranker", "text-ranker/bm25-v1", "--explain",
        cwd=shop.root, env={**FRESH, "RQ_CACHE": str(blocker / "cache")},
    )  # fmt: skip
    assert h.code == 0 and h.out.startswith("# cache: memory in ") and " ms (" in h.out


@pytest.mark.parametrize(
    ("limits", "word"),
    [(Limits(docs=2), "documents"), (Limits(terms=3), "terms"), (Limits(postings=4), "postings"),
     (Limits(bytes=4096), "bytes")],
)  # fmt: skip
def test_a_generation_past_a_limit_is_never_published(
    shop: Repo, rq: RQ, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limits: Limits, word: str
) -> None:
    cache = tmp_path / "c"
    monkeypatch.setenv("RQ_CACHE", str(cache))
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "0")
    conn = db.connect(readonly=True)
    try:
        identity = source.repository_of(conn, shop.root)
        served = manager.serve(conn, identity, limits=limits)
    finally:
        conn.close()
    assert served.state == "memory" and word in served.note, served.note
    assert served.gen is None and served.graph is not None
    # nothing staged, published or pointed at (the document limit is known before
    # anything is realized: not even the directory is made)
    assert not [p for p in cache.glob("text/*/*") if p.name.startswith(("tmp-", "g-", "current"))]
    # and the next query with the ordinary limits builds and serves
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt" and got == reference(rq, shop, tmp_path, "fresh")


# --- generations that must never be queried -----------------------------------------------


def _root_page(g: Path, table: str) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{g}?mode=ro", uri=True)
    try:
        (page,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    finally:
        conn.close()
    return int(page), int(size)


def _overwrite_page(g: Path, table: str) -> None:
    page, size = _root_page(g, table)
    with open(g, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xff" * size)


def _corrupt(g: Path, how: str) -> None:
    if how == "truncated to nothing":
        g.write_bytes(b"")
    elif how == "truncated to half":
        with open(g, "r+b") as f:
            f.truncate(g.stat().st_size // 2)
    elif how == "header overwritten":
        with open(g, "r+b") as f:
            f.write(b"\x00" * 100)
    elif how == "docs table overwritten":
        _overwrite_page(g, "docs")
    elif how == "terms table overwritten":
        _overwrite_page(g, "terms")
    elif how == "not a database":
        g.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "truncated to nothing",
        "truncated to half",
        "header overwritten",
        "not a database",
        # (SQLite finds these mid-query: the generation is discarded and the query asked
        # again, never an error that blames the index)
        "docs table overwritten",
        "terms table overwritten",
    ],
)
def test_a_corrupt_generation_is_never_queried(
    shop: Repo, rq: RQ, tmp_path: Path, how: str
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    g = current_generation(cache)
    _corrupt(g, how)
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt" and st["note"], st
    assert got == reference(rq, shop, tmp_path, "fresh")
    assert current_generation(cache) != g
    recompute_aggregates(current_generation(cache))
    assert ask(rq, shop, QUERY, cache)[0]["state"] == "hit"


@pytest.mark.parametrize(
    "pointer", ["g-999-deadbeef.db\n", "", "../../../etc/passwd\n", "g-1-zzzz.db\n", "\x00\xff"]
)
def test_a_bogus_current_pointer_is_never_followed(
    shop: Repo, rq: RQ, tmp_path: Path, pointer: str
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    d = cache_dir(cache)
    (d / "current").write_text(pointer, encoding="utf-8", errors="surrogateescape")
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt", st
    assert got == reference(rq, shop, tmp_path, "fresh")
    assert ask(rq, shop, QUERY, cache)[0]["state"] == "hit"


def _checksum(body: dict[str, Any]) -> str:
    """The manifest's checksum, computed as a writer would (sha256 of its sorted JSON)."""
    body = {k: v for k, v in body.items() if k != "checksum"}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _point_at_altered_copy(cache: Path, alter: Callable[[sqlite3.Connection], object]) -> Path:
    """A copy of the current generation, altered, published under a valid name and made
    current (as a buggy or future writer could leave it)."""
    d = cache_dir(cache)
    g = current_generation(cache)
    seq = g.name.split("-")[1]
    copy = d / f"g-{seq}-abcdef01.db"
    shutil.copyfile(g, copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        alter(conn)
    finally:
        conn.close()
    (d / "current").write_text(copy.name + "\n")
    return copy


def _edit_manifest(change: Callable[[dict[str, Any]], None], *, reseal: bool) -> Callable[[sqlite3.Connection], None]:  # fmt: skip
    def alter(conn: sqlite3.Connection) -> None:
        body = json.loads(conn.execute("SELECT body FROM manifest").fetchone()[0])
        change(body)
        if reseal:
            body["checksum"] = _checksum(body)
        conn.execute("UPDATE manifest SET body = ?", (json.dumps(body),))

    return alter


def _set(**kv: Any) -> Callable[[dict[str, Any]], None]:
    return lambda body: body.update(kv)


ALTERATIONS: dict[str, tuple[Callable[[sqlite3.Connection], object], str]] = {
    "unknown format major (user_version)": (
        lambda c: c.execute("PRAGMA user_version = 99"), "unknown cache format major 99"),
    "unknown format major (manifest)": (
        _edit_manifest(_set(format=3), reseal=True), "unknown cache format major 3"),
    "manifest checksum does not match": (
        _edit_manifest(_set(lexical="0" * 64), reseal=False), "checksum"),
    "manifest counts altered, checksum left": (
        _edit_manifest(lambda b: b.update(docs=b["docs"] + 1), reseal=False), "checksum"),
    "incomplete (state building)": (
        _edit_manifest(_set(state="building"), reseal=True), "incomplete"),
    "impossible counts, resealed": (
        _edit_manifest(_set(docs=0), reseal=True), "inconsistent"),
    "manifest not JSON": (
        lambda c: c.execute("UPDATE manifest SET body = '{not json'"), "not JSON"),
    "no manifest row": (lambda c: c.execute("DELETE FROM manifest"), "no manifest"),
    "stats differ from the manifest": (
        lambda c: c.execute("UPDATE stats SET total_length = total_length + 1"), "statistics"),
}  # fmt: skip


@pytest.mark.parametrize("what", list(ALTERATIONS))
def test_an_unknown_or_mismatched_generation_is_rebuilt(
    shop: Repo, rq: RQ, tmp_path: Path, what: str
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    alter, says = ALTERATIONS[what]
    bad = _point_at_altered_copy(cache, alter)
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt" and says in st["note"], st
    assert got == reference(rq, shop, tmp_path, "fresh")
    assert current_generation(cache) != bad


def test_a_generation_bound_to_a_later_index_state_is_neither_served_nor_a_delta_base(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    """A generation claiming a state the index has not reached (an index restored from a
    backup, say) is valid but not this state's: rebuilt, never a hit, never a delta."""
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)

    def later(body: dict[str, Any]) -> None:
        store_rid = body["graph"].rsplit(":", 1)[0]
        body.update(seq=body["seq"] + 1000, graph=f"{store_rid}:{body['seq'] + 1000}")

    _point_at_altered_copy(cache, _edit_manifest(later, reseal=True))
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt", st
    assert got == reference(rq, shop, tmp_path, "fresh")


def test_a_generation_of_another_repository_is_never_served(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    _point_at_altered_copy(cache, _edit_manifest(_set(repository="local:/elsewhere"), reseal=True))  # fmt: skip
    st, got = ask(rq, shop, QUERY, cache)
    assert st["state"] == "rebuilt", st
    assert got == reference(rq, shop, tmp_path, "fresh")


def _reverse_postings(conn: sqlite3.Connection) -> None:
    (blob,) = conn.execute("SELECT docs FROM terms WHERE text = ?", (QUERY,)).fetchone()
    keys = [blob[i : i + 8] for i in range(0, len(blob), 8)]
    conn.execute("UPDATE terms SET docs = ? WHERE text = ?", (b"".join(reversed(keys)), QUERY))


IN_PLACE: dict[str, Callable[[sqlite3.Connection], object]] = {
    "term frequencies zeroed": lambda c: c.execute(
        "UPDATE terms SET tfs = zeroblob(length(tfs)) WHERE text = ?", (QUERY,)
    ),
    "a posting list out of order": _reverse_postings,
    "a document's line moved": lambda c: c.execute(
        "UPDATE docs SET line = line + 100 WHERE name = 'refund_ledger'"
    ),
    "a document's name changed": lambda c: c.execute(
        "UPDATE docs SET name = 'refund_forged' WHERE name = 'refund_ledger'"
    ),
}


@pytest.mark.parametrize("what", list(IN_PLACE))
def test_rows_altered_inside_a_valid_file_are_never_served(
    shop: Repo, rq: RQ, tmp_path: Path, what: str
) -> None:
    """Damage SQLite cannot see (a flipped sector, a bad copy): the manifest and the
    statistics still agree, the file is a valid database, and yet it must not answer."""
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    g = current_generation(cache)
    conn = sqlite3.connect(g, isolation_level=None)
    try:
        IN_PLACE[what](conn)
    finally:
        conn.close()
    st, got = ask(rq, shop, QUERY, cache)
    assert got == reference(rq, shop, tmp_path, "fresh"), st
    assert st["state"] == "rebuilt" and st["generation"] != g.name, st
    assert ask(rq, shop, QUERY, cache)[0]["state"] == "hit"


OVERLAY_FAULTS: dict[str, Callable[[Path, Path, Path], object]] = {
    "its base is gone": lambda overlay, base, other: base.unlink(),
    "its base is another generation": lambda overlay, base, other: shutil.copyfile(other, base),
    "an overlay posting altered": lambda overlay, base, other: _alter(
        overlay, "UPDATE terms SET tfs = zeroblob(length(tfs)) WHERE text = 'refund'"
    ),
    "an overlay row altered": lambda overlay, base, other: _alter(
        overlay, "UPDATE docs SET line = line + 100 WHERE name = 'refund_journal'"
    ),
    "a gone key dropped": lambda overlay, base, other: _alter(overlay, "DELETE FROM gone"),
}


def _alter(p: Path, sql: str) -> None:
    conn = sqlite3.connect(p, isolation_level=None)
    try:
        assert conn.execute(sql).rowcount > 0
    finally:
        conn.close()


@pytest.mark.parametrize("what", list(OVERLAY_FAULTS))
def test_an_overlay_is_served_only_whole_and_over_its_own_base(
    shop: Repo, rq: RQ, tmp_path: Path, what: str
) -> None:
    """A delta is an overlay file over the base it names: a missing or substituted base,
    or damage inside the overlay, is never served — rebuilt, with the full answer."""
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    rename_refund_ledger(shop)
    st, _ = ask(rq, shop, QUERY, cache)
    assert st["state"] == "delta", st
    ask(rq, shop, QUERY, tmp_path / "other")
    other = current_generation(tmp_path / "other")  # a valid base, of another state
    overlay = current_generation(cache)
    base = overlay.parent / json.loads(
        sqlite3.connect(f"file:{overlay}?mode=ro", uri=True).execute("SELECT body FROM manifest").fetchone()[0]
    )["parent"]  # fmt: skip
    assert base.name.startswith("g-") and base.exists()
    OVERLAY_FAULTS[what](overlay, base, other)
    st, got = ask(rq, shop, QUERY, cache)
    assert got == reference(rq, shop, tmp_path, "fresh"), st
    assert st["state"] == "rebuilt" and st["note"], st
    assert "refund_journal" in {r["name"] for r in got["results"]}
    assert ask(rq, shop, QUERY, cache)[0]["state"] == "hit"
