"""The engine's layers only point down, and the faces form no cycle (read from the source).

core < lang < store < index < search, text < faces (cli, mcp, rq_tui) < the entry
point (rq_engine/main.py, and `python -m rq_engine`): a package imports only those
below it (search and text are side by side and may not import each other both
ways). The entry point dispatches to the faces; no face imports another face, nor
the entry point. Every import counts,
the deferred ones inside functions too: a layer crossed lazily is still crossed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RANK = {"core": 0, "lang": 1, "store": 2, "index": 3, "search": 4, "text": 4}
FACES = {"cli", "mcp", "rq_tui"}
ENTRY = "entry"  # rq_engine/main.py and rq_engine/__main__.py


def package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "rq_tui":
        return "rq_tui"
    if parts[0] == "rq_engine" and len(parts) > 1:
        return ENTRY if parts[1] in ("main", "__main__") else parts[1]
    return None


def imports() -> list[tuple[str, str, str]]:
    """(importing module, its package, imported package) for every cross-package import."""
    out = []
    for f in [*ROOT.glob("rq_engine/**/*.py"), *ROOT.glob("rq_tui/**/*.py")]:
        module = ".".join(f.relative_to(ROOT).with_suffix("").parts)
        src = package(module)
        if src is None:
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                dst = package(name)
                if dst is not None and dst != src:
                    out.append((module, src, dst))
    return out


def test_the_walk_sees_the_packages() -> None:
    # (an empty walk would pass everything below)
    seen = {(s, d) for _, s, d in imports()}
    assert {("search", "core"), ("index", "store"), ("cli", "search"), ("rq_tui", "search")} <= seen


def test_no_engine_package_imports_one_above_it_or_a_face() -> None:
    bad = [
        f"{m} ({s}) imports {d}"
        for m, s, d in imports()
        if s in RANK and (d in FACES or d == ENTRY or RANK[d] > RANK[s])
    ]
    assert not bad, bad


def test_search_and_text_do_not_import_each_other_both_ways() -> None:
    pairs = {(s, d) for _, s, d in imports() if s in ("search", "text") and d in ("search", "text")}
    assert len(pairs) < 2, pairs


def test_no_face_imports_another_face_or_the_entry_point() -> None:
    bad = [f"{m} ({s}) imports {d}" for m, s, d in imports() if s in FACES and d in (*FACES, ENTRY)]
    assert not bad, bad


def test_the_entry_point_dispatches_to_every_face() -> None:
    # (so the two tests above see the dispatcher where it is)
    assert {d for _, s, d in imports() if s == ENTRY} >= FACES
