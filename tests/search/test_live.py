"""The live scan of an untracked directory: real files in temporary folders, the real indexer."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rq_engine.index.indexer import index_under
from rq_engine.index.walker import walk_native, walk_native_bounded
from rq_engine.lang.registry import language_for_path
from rq_engine.search.live import LiveResult, scan
from rq_engine.search.pipeline import Searcher
from rq_engine.search.types import CancelToken, Hit
from rq_engine.store.db import connect
from rq_engine.store.paths import index_db_path
from tests.conftest import ROOT, Repo

PLAIN = {
    ".gitignore": "generated/\n*.tmp.py\n",
    "app/config.py": (
        "class ConfigLoader:\n"
        "    def load_config(self, path):\n"
        "        return path\n"
        "\n"
        "\n"
        "def parse_config(text):\n"
        "    return text\n"
    ),
    "app/server.py": "class RequestHandler:\n    def handle(self):\n        pass\n",
    "cmd/main.go": (
        "package main\n\nfunc ParseConfig(s string) string {\n\treturn s\n}\n\n"
        "type ServerOptions struct {\n\tPort int\n}\n"
    ),
    "lib/widget.rb": "class WidgetRenderer\n  def render_widget\n  end\nend\n",
    "generated/config.py": "class ConfigLoader:\n    pass\n",  # ignored directory
    "notes.tmp.py": "class ConfigLoader:\n    pass\n",  # ignored by pattern
    "README.md": "# not source\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def _indexed_hits(store: Path, root: Path, query: str, limit: int = 10) -> list[Hit]:
    """What the engine answers once `root` is indexed for real into a file store."""
    conn = connect(store)
    try:
        index_under(conn, root)
        batches = list(Searcher(conn, root).search(query, limit=limit))
    finally:
        conn.close()
    assert batches and batches[-1].final
    return batches[-1].hits


def _at(hits: list[Hit]) -> list[str]:
    return [f"{h.path}:{h.line}" for h in hits]


def test_plain_directory_ranks_as_the_index_would(tmp_path: Path) -> None:
    plain = _write(tmp_path / "plain", PLAIN)
    store = tmp_path / "elsewhere" / "index.db"
    expected_top = {  # query: (top hit, its match quality as --explain names it)
        "ConfigLoader": ("app/config.py:1", "exact"),
        "RequestHand": ("app/server.py:1", "prefix"),
        "WidgteRenderer": ("lib/widget.rb:1", "typo"),
        "ParseConfig": ("cmd/main.go:3", "exact"),  # and Python's parse_config below it
        "srvopts": ("cmd/main.go:7", "subseq"),
    }
    for query, (top, quality) in expected_top.items():
        live = scan(plain, query, limit=10)
        assert live.complete and live.files == 4, query
        assert live.hits, query
        assert _at(live.hits)[0] == top, (query, live.hits)
        assert quality in dict(live.hits[0].score.parts), (query, live.hits[0].score)
        # the same hits, scores and order as the engine over a real index of the directory
        assert live.hits == _indexed_hits(store, plain, query), query
        for h in live.hits:
            assert not h.path.startswith("generated/") and h.path != "notes.tmp.py"
            assert Path(h.abspath).is_file()
            assert h.repository == f"local:{plain.resolve()}"
    # no index was created for a directory nobody asked to index
    assert not index_db_path().exists()


def test_indexed_repositories_under_the_directory_are_merged_by_score(
    tmp_path: Path, make_repo: Callable[..., Repo]
) -> None:
    top = tmp_path / "top"
    _write(
        top,
        {"loose/render.py": "class PageRenderer:\n    pass\n\n\ndef render_page():\n    pass\n"},
    )
    repo = make_repo(
        {"src/page.py": "def helper():\n    pass\n\n\nclass PageRenderer:\n    pass\n"},
        name="top/proj",
    )
    tracked = _write(top / "tracked", {"page.rb": "class PageRendererBase\nend\n"})
    conn = connect()
    index_under(conn, repo.root)
    index_under(conn, tracked)  # a non-git directory someone ran `rq --index` on
    conn.close()

    live = scan(top, "PageRenderer", limit=10)
    # only the loose file was parsed live: the repository and the tracked directory
    # are answered by the index, not walked (nothing counted twice)
    assert live.files == 1 and live.complete
    where = {(h.root, h.path) for h in live.hits}
    assert where == {
        (str(top.resolve()), "loose/render.py"),
        (str(repo.root.resolve()), "src/page.py"),
        (str(tracked.resolve()), "page.rb"),
    }
    totals = [h.score.total for h in live.hits]
    assert totals == sorted(totals, reverse=True)
    assert live.hits[-1].name == "PageRendererBase"  # a prefix ranks below the exact ones
    for h in live.hits:
        assert "PageRenderer" in Path(h.abspath).read_text().splitlines()[h.line - 1]

    # the index's part is exactly what a search inside that repository answers
    ro = connect(readonly=True)
    in_repo = list(Searcher(ro, repo.root).search("PageRenderer", limit=10))[-1].hits
    ro.close()
    assert [h for h in live.hits if h.root == str(repo.root.resolve())] == in_repo

    # cut to the limit after the merge
    assert scan(top, "PageRenderer", limit=1).hits == live.hits[:1]


def test_max_files_cuts_the_scan_and_says_so(tmp_path: Path) -> None:
    plain = _write(
        tmp_path / "plain",
        {
            **{f"m{i}.py": f"def func_{i}():\n    pass\n" for i in range(5)},
            "data.txt": "not source\n",
            "notes.md": "not source\n",
        },
    )
    whole = scan(plain, "func_", limit=10)
    assert whole.complete and whole.files == 5 and len(whole.hits) == 5
    cut = scan(plain, "func_", limit=10, max_files=2)
    assert not cut.complete and cut.files == 2
    assert [h.name for h in cut.hits] == ["func_0", "func_1"]
    assert scan(plain, "func_", limit=10, max_files=5).complete  # exactly at the bound


def test_budget_and_cancel_stop_the_scan(tmp_path: Path) -> None:
    plain = _write(tmp_path / "plain", {"a.py": "def alpha():\n    pass\n"})
    assert scan(plain, "alpha", limit=5, budget_ms=0) == LiveResult([], False, 0)
    token = CancelToken()
    token.cancel()
    assert scan(plain, "alpha", limit=5, cancel=token) == LiveResult([], False, 0)


def _deep(root: Path, levels: int) -> Path:
    # level by level: Path.mkdir(parents=True) and os.makedirs recurse once a level
    d = root
    d.mkdir()
    for _ in range(levels):
        d = d / "d"
        d.mkdir()
    (d / "bottom.py").write_text("def bottom():\n    pass\n")
    return d


def _remove_deep(root: Path, bottom: Path) -> None:
    # shutil.rmtree recurses once a level: 1,000 levels would exhaust the stack
    (bottom / "bottom.py").unlink()
    d = bottom
    while d != root:
        d.rmdir()
        d = d.parent


def test_a_directory_a_thousand_levels_deep_does_not_raise(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    bottom = _deep(root, 1000)
    (root / "top.py").write_text("def top_level():\n    pass\n")
    try:
        live = scan(root, "top_level", limit=5)
        assert not live.complete  # the depth bound left the bottom out
        assert _at(live.hits) == ["top.py:1"]
        # the unbounded walk is iterative too
        assert any(p.endswith("/bottom.py") for p in walk_native(root))
    finally:
        _remove_deep(root, bottom)


def test_bounded_walk_keeps_the_nearest_files_and_honours_gitignore(tmp_path: Path) -> None:
    plain = _write(
        tmp_path / "plain",
        {
            ".gitignore": "skip/\n",
            "z.py": "",
            "a/b/deep.py": "",
            "a/near.py": "",
            "skip/x.py": "",
            "other/.git/HEAD": "",  # another repository
            "other/inner.py": "",
            "readme.txt": "",
        },
    )

    def keep(rel: str) -> bool:
        return language_for_path(rel) is not None

    assert walk_native_bounded(plain, 10, keep=keep) == (["a/b/deep.py", "a/near.py", "z.py"], True)
    # breadth-first: a cut keeps the shallow files
    assert walk_native_bounded(plain, 2, keep=keep) == (["a/near.py", "z.py"], False)
    assert walk_native_bounded(plain, 10, keep=keep, max_depth=1) == (["a/near.py", "z.py"], False)
    assert walk_native_bounded(plain, 10, keep=keep, skip=["a"]) == (["z.py"], True)
    everything = walk_native_bounded(plain, 100)
    assert everything == (walk_native(plain), True)
    assert ".gitignore" in everything[0] and "readme.txt" in everything[0]


def test_a_scan_with_nothing_to_parse_loads_no_parser_or_ui(tmp_path: Path) -> None:
    empty = _write(tmp_path / "docs", {"README.md": "# nothing to parse\n"})
    code = (
        "import sys\nfrom pathlib import Path\nfrom rq_engine.search.live import scan\n"
        f"r = scan(Path({str(empty)!r}), 'x', limit=5)\n"
        "assert r.hits == [] and r.complete and r.files == 0, r\n"
        "heavy = {'tree_sitter', 'tree_sitter_language_pack', 'textual', 'rich', 'mcp'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"
