"""Concurrency qualification of the persisted bm25-v1 cache (#11 items 5 and 7): builders
racing on one cache, a builder holding the lock, and a reader pinned on a generation
while newer ones are published and the old file is removed."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rq_engine.text import bm25
from rq_engine.text.cache import store
from rq_engine.text.cache.reader import open_generation
from rq_engine.text.query import TextQuery
from tests.conftest import Repo, rq_bin
from tests.text.test_cache_delta import (
    FRESH,
    RQ,
    ask,
    cache_dir,
    cache_shop,
    current_generation,
    same_generation,
)

QUERY = "refund"


@pytest.fixture
def shop(make_repo: Callable[..., Repo], rq: RQ) -> Repo:
    return cache_shop(make_repo, rq)


def _rename(repo: Repo, old: str, new: str) -> None:
    p = repo.root / "shop/payments.py"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new), encoding="utf-8")


def _race(repo: Repo, cache: Path, n: int) -> list[tuple[dict[str, str], dict[str, Any]]]:
    """n real `rq --text` processes started together on one cache root."""
    env = {**os.environ, **FRESH, "RQ_CACHE": str(cache)}
    args = [*rq_bin(), "--text", QUERY, "--ranker", "text-ranker/bm25-v1", "--json", "--explain"]
    procs = [
        subprocess.Popen(args, cwd=repo.root, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(n)
    ]  # fmt: skip
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        assert "Traceback" not in stderr
        doc = json.loads(stdout)
        out.append((doc.pop("cache"), doc))
    return out


def test_concurrent_builders_all_answer_correctly_and_one_generation_is_current(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    edits = [None, ("refund_ledger", "refund_journal"), ("send_receipt", "refund_receipt")]
    for i, edit in enumerate(edits):
        if edit is not None:
            _rename(shop, *edit)
            assert rq("--index", ".", cwd=shop.root).code == 0  # both see the same new state
        answers = _race(shop, cache, 2)
        fresh = tmp_path / f"fresh-{i}"
        st, want = ask(rq, shop, QUERY, fresh)
        assert st["state"] == "rebuilt"
        built = "rebuilt" if edit is None else "delta"
        for state, doc in answers:
            assert doc == want, (i, state)
            assert state["state"] in (built, "hit", "memory"), state
            if state["state"] == "memory":
                assert "another rq is building" in state["note"], state
        assert any(s["state"] != "memory" for s, _ in answers), answers
        d = cache_dir(cache)
        assert [p.name for p in d.iterdir() if p.name.startswith("tmp-")] == []
        same_generation(current_generation(cache), current_generation(fresh))
        after = ask(rq, shop, QUERY, cache)
        assert after[0]["state"] == "hit" and after[1] == want


def test_a_held_lock_makes_the_query_answer_from_memory_never_wait(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    before = current_generation(cache)
    _rename(shop, "refund_ledger", "refund_journal")
    with store.writer(cache_dir(cache)):  # another builder, mid-build
        st, got = ask(rq, shop, QUERY, cache)
        assert st["state"] == "memory" and "another rq is building" in st["note"], st
        assert "refund_journal" in {r["name"] for r in got["results"]}
        assert current_generation(cache) == before  # nothing published under a held lock
    want = ask(rq, shop, QUERY, tmp_path / "fresh")[1]
    assert got == want
    st, again = ask(rq, shop, QUERY, cache)
    assert st["state"] == "delta" and again == want


def test_a_pinned_reader_keeps_its_generation_while_newer_ones_are_published(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    ask(rq, shop, QUERY, cache)
    _rename(shop, "refund_ledger", "refund_register")
    st, _ = ask(rq, shop, QUERY, cache)
    assert st["state"] == "delta"
    old = current_generation(cache)  # an overlay...
    old_base = old.parent / store.base_of(old)  # ...and its base: the pair a reader pins
    q = TextQuery.parse(QUERY)
    # two readers pinned on the old generation: one ranks now, one only afterwards
    now = open_generation(old, bm25.PROFILE)
    later = open_generation(old, bm25.PROFILE)
    try:
        before = now.rank(q, explain=True, limit=20)
        before_hits = [now.hit(r.id) for r in before.results]
        assert "refund_register" in {n.name for n, _ in before_hits}
        # newer generations are published (overlays, then a new base that folds them in,
        # then overlays over that) until both old files are removed from the cache
        names = ["refund_journal", "refund_book", "refund_diary", "refund_log", "refund_roll"]
        prev = "refund_register"
        for i, new in enumerate(names):
            _rename(shop, prev, new)
            prev = new
            env = {"RQ_TEXT_CACHE_COMPACT_AT": "1"} if i == 1 else {}
            st, doc = ask(rq, shop, QUERY, cache, env=env)
            assert st["state"] == ("rebuilt" if i == 1 else "delta"), (i, st)
            assert current_generation(cache) != old
            assert new in {r["name"] for r in doc["results"]}
            if not old.exists() and not old_base.exists():
                break
        assert not old.exists() and not old_base.exists(), "old generations are cleaned up"
        # the pinned pair still answers from the old state, whole and unchanged
        after = later.rank(q, explain=True, limit=20)
        after_hits = [later.hit(r.id) for r in after.results]
        assert after == before and after_hits == before_hits
        assert now.rank(q, explain=True, limit=20) == before
    finally:
        now.close()
        later.close()
