"""The MCP face stays a face: the engine never imports it, its engine process never loads
the SDK, and `--mcp` is a mode of its own on the command line."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT, Repo, Run

ENGINE_PACKAGES = ("core", "store", "index", "search", "text", "lang")


def test_engine_packages_never_import_the_mcp_face() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+(rq_engine\.mcp|mcp)\b", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for pkg in ENGINE_PACKAGES
        for p in (ROOT / "rq_engine" / pkg).rglob("*.py")
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_engine_process_never_loads_the_sdk() -> None:
    probe = (
        "import sys\n"
        "import rq_engine.mcp.engine as e\n"
        "e.tools()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('mcp', 'mcp_types', 'anyio', 'pydantic', 'starlette'))\n"
        "print(heavy)\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_mcp_is_a_mode(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = make_repo({"a.py": "def f():\n    pass\n"})
    for argv in (["--mcp", "Foo"], ["--mcp", "--index", "."], ["--mcp", "--text", "x"]):
        r = rq(*argv, cwd=repo.root)
        assert r.code == 64 and r.err.startswith("rq: "), (argv, r.err)
    assert "--mcp" in rq("--help").out


def test_the_server_leaves_when_its_client_does(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({"a.py": "def f():\n    pass\n"})
    exe = Path(sys.executable).parent / "rq"
    p = subprocess.run(
        [str(exe), "--mcp"], cwd=repo.root, input="", capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0 and p.stdout == "", p.stderr
