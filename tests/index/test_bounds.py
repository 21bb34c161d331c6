"""What one file can do to an index: deep nesting and long names are cut and counted, a deep
tree is walked, and no single node fails `rq --text` for the repository. Real processes."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run

RUST_DEPTH = 3000  # 30 KB: before the cut its parents alone were 13.5 MB
RUBY_DEPTH = 2000
PY_DEPTH = 60


def nested_rust(depth: int) -> str:
    return "mod a {\n" * depth + "fn rust_leaf() {}\n" + "}\n" * depth


def nested_ruby(depth: int) -> str:
    return "class K\n" * depth + "def ruby_leaf\nend\n" + "end\n" * depth


def nested_python(depth: int) -> str:
    classes = "".join(" " * i + f"class C{i}:\n" for i in range(depth))
    return classes + " " * depth + "def py_leaf(self):\n" + " " * (depth + 1) + "pass\n"


NORMAL = "class Outer:\n    class Inner:\n        def normal_leaf(self):\n            pass\n"


@pytest.fixture
def nested(make_repo: Callable[..., Repo]) -> Repo:
    return make_repo(
        {
            "deep.rs": nested_rust(RUST_DEPTH),
            "deep.rb": nested_ruby(RUBY_DEPTH),
            "deep.py": nested_python(PY_DEPTH),
            "normal.py": NORMAL,
        }
    )


def _hit(rq: Callable[..., Run], name: str, cwd: Path) -> dict[str, object]:
    r = rq("-q", "--json", name, cwd=cwd)
    assert r.code == 0, r.err
    hits = json.loads(r.out)["results"]
    assert hits and hits[0]["name"] == name
    return dict(hits[0])


def _index_kib(status: str) -> float:
    m = re.search(r"index \S+ ([\d.]+) (B|KiB|MiB|GiB)", status)
    assert m, status
    return float(m.group(1)) * {"B": 1 / 1024, "KiB": 1, "MiB": 1024, "GiB": 1024**2}[m.group(2)]


def test_deep_nesting_is_cut_counted_and_searchable(nested: Repo, rq: Callable[..., Run]) -> None:
    r = rq("--index", str(nested.root))
    assert r.code == 0 and "Traceback" not in r.err
    # every definition is kept (nothing dropped, only the chains above them cut)
    total = RUST_DEPTH + 1 + RUBY_DEPTH + 1 + PY_DEPTH + 1 + 3
    assert "indexed 4 files (4 new or changed, 0 removed, 0 skipped, 0 failed" in r.err
    assert f"), {total} symbols in" in r.err
    rust = _hit(rq, "rust_leaf", nested.root)
    assert (rust["path"], rust["line"]) == ("deep.rs", RUST_DEPTH + 1)
    assert rust["qualified"] == "…" + "::a" * 31 + "::rust_leaf"  # the innermost 31 scopes
    ruby = _hit(rq, "ruby_leaf", nested.root)
    assert (ruby["path"], ruby["line"]) == ("deep.rb", RUBY_DEPTH + 1)
    assert str(ruby["qualified"]).startswith("…::K::K") and len(str(ruby["qualified"])) < 200
    py = _hit(rq, "py_leaf", nested.root)
    assert (py["path"], py["line"]) == ("deep.py", PY_DEPTH + 1)
    inner = ".".join(f"C{i}" for i in range(PY_DEPTH - 31, PY_DEPTH))
    assert py["qualified"] == f"….{inner}.py_leaf"
    # a normal file beside them is exactly as before
    assert _hit(rq, "normal_leaf", nested.root)["qualified"] == "Outer.Inner.normal_leaf"
    # the graph of the whole repository still realizes: rq --text answers
    r = rq("--text", "rust_leaf", cwd=nested.root)
    assert r.code == 0 and r.out.startswith(f"deep.rs:{RUST_DEPTH + 1}  function")
    # the index stays small: the uncut parents of deep.rs and deep.rb alone were 25 MB
    status = rq("--status")
    assert status.code == 0 and _index_kib(status.out) < 4 * 1024


def test_the_summary_counts_what_was_cut(nested: Repo, rq: Callable[..., Run]) -> None:
    os.symlink("deep.rs", nested.root / "alias.rs")
    nested.commit("a symlink")
    r = rq("--index", str(nested.root))
    # deep.rs: the modules 33 and more scopes down and the fn; deep.rb likewise;
    # deep.py: C33..C59 and py_leaf
    cut = (RUST_DEPTH - 32) + (RUBY_DEPTH - 32) + (PY_DEPTH - 32)
    assert r.code == 0
    assert f"1 skipped, 0 failed, 1 symlink skipped, {cut} qualified names cut)" in r.err


def test_a_plain_directory_a_thousand_levels_deep(tmp_path: Path, rq: Callable[..., Run]) -> None:
    """Walked without recursion, indexed, searchable; its file's stable ID (over 2,048
    characters: the path alone is 2,000) is cut with a digest, so `rq --text` answers."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "top.py").write_text("def shallow_def():\n    pass\n")
    deep = str(plain)
    for _ in range(1000):  # (os.makedirs recurses once a level)
        deep = os.path.join(deep, "d")
        os.mkdir(deep)
    with open(os.path.join(deep, "x.py"), "w") as f:
        f.write("def deepest_def():\n    pass\n")
    try:
        _search_the_deep_tree(plain, rq)
    finally:  # pytest's own clean-up of tmp_path recurses once a level too
        os.unlink(os.path.join(deep, "x.py"))
        while deep != str(plain):
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def _search_the_deep_tree(plain: Path, rq: Callable[..., Run]) -> None:
    r = rq("--index", str(plain))
    assert r.code == 0 and "Traceback" not in r.err
    assert "indexed 2 files (2 new or changed, 0 removed, 0 skipped, 0 failed)" in r.err
    r = rq("-q", "deepest_def", cwd=plain)
    assert r.code == 0 and r.out.startswith("d/d/d/") and "/x.py:1  function" in r.out
    r = rq("--text", "deepest_def", cwd=plain)
    assert r.code == 0 and "/x.py:1  function  deepest_def" in r.out
    r = rq("--text", "shallow_def", cwd=plain)
    assert r.code == 0 and r.out.startswith("top.py:1  function  shallow_def")
