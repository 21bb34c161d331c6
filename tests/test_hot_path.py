"""`rq -q` on a hit loads no UI, parser or agent library (each costs tens of ms to
import), nor the stdlib modules the engine has no use for on that path (a few ms each)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable

from tests.conftest import Repo, Run

HEAVY = ("textual", "rich", "tree_sitter", "tree_sitter_language_pack", "mcp")

# `re` with `enum` (~3 ms), `json` (~1 ms, and it loads re), the `sqlite3` package's
# DB-API module with `datetime` (~2 ms): plain output needs none of them. Nor
# `dataclasses` with `inspect` (~7 ms) or `typing` (~3 ms): values are core/record's.
LEAN = ("re", "enum", "json", "datetime", "sqlite3", "dataclasses", "inspect", "typing")

# Runs the real CLI entry point in-process, then reports what got imported (listed
# before the report's own json is imported).
PROBE = """
import io, sys
from rq_engine.main import main
out = io.StringIO()
real, sys.stdout = sys.stdout, out
code = main(sys.argv[1:])
sys.stdout = real
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "out": out.getvalue(), "modules": modules}))
"""


def test_a_hit_imports_nothing_heavy(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(
        {"a.py": "class Widget:\n    pass\n", "b.py": "def widget_factory():\n    pass\n"}
    )
    assert rq("--index", str(repo.root)).code == 0
    for query in ("Widget", "wdgtfact", "Wigdet"):  # exact, fuzzy, typo layers
        p = subprocess.run(
            [sys.executable, "-c", PROBE, "-q", query],
            cwd=repo.root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 0, p.stderr
        report = json.loads(p.stdout)
        assert report["code"] == 0 and report["out"], (query, report["out"])
        loaded = [m for m in report["modules"] if m.split(".")[0] in (*HEAVY, *LEAN)]
        assert loaded == [], (query, loaded)
        # the indexer (and with it the parse pool) is only for first-time indexing
        assert "rq_engine.index.indexer" not in report["modules"]
    # (the names above are real modules: renamed, this test must fail, not pass empty)
    for name in ("rq_engine.index.indexer", *HEAVY, *LEAN):
        assert importlib.util.find_spec(name) is not None, name


def test_a_miss_loads_nothing_heavy_either(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    # A miss asks git what moved (index/fresh.py) through posix_spawn: subprocess
    # (~4 ms) and pathlib (~5 ms) stay out, as do the UI, the parser and the indexer.
    repo = make_repo(
        {"a.py": "class Widget:\n    pass\n", "docs/notes.txt": "n\n", "docs/more.txt": "m\n"}
    )
    assert rq("--index", str(repo.root)).code == 0
    for _ in range(2):  # the first miss also lists what git tracks; the second does not
        p = subprocess.run(
            [sys.executable, "-c", PROBE, "-q", "NothingNamedLikeThis"],
            cwd=repo.root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        report = json.loads(p.stdout)
        assert (report["code"], report["out"]) == (1, ""), p.stderr
        heavy = {*HEAVY, *LEAN, "subprocess", "pathlib", "rq_engine.index.indexer"}
        loaded = [m for m in report["modules"] if m in heavy or m.split(".")[0] in HEAVY]
        assert loaded == [], loaded
