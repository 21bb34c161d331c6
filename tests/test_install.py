"""rq as an installed tool: `rq --version`, the environment in `--help`, `make install`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.cli.version import checkout_commit
from rq_engine.store.schema import latest
from tests.conftest import Repo, Run, have

ROOT = Path(__file__).resolve().parent.parent


def test_version_names_version_commit_and_index_schema(rq: Callable[..., Run]) -> None:
    r = rq("--version")
    assert r.code == 0 and r.err == ""
    name, commit, schema = r.out.splitlines()
    assert name == "rq 0.1.0"
    if (ROOT / ".git").exists():  # run from the checkout: its HEAD, as git says it
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        assert commit == f"commit {head.stdout.strip()}"
    assert schema == f"index schema {latest()}"


def test_the_commit_is_read_from_loose_packed_detached_and_worktree_refs(
    make_repo: Callable[..., Repo], tmp_path: Path
) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    head = repo.git("rev-parse", "HEAD").strip()
    assert checkout_commit(str(repo.root)) == head  # loose ref
    repo.git("pack-refs", "--all")
    assert not (repo.root / ".git/refs/heads/main").exists()
    assert checkout_commit(str(repo.root)) == head  # packed-refs
    repo.commit("second")
    second = repo.git("rev-parse", "HEAD").strip()
    repo.git("worktree", "add", "-q", "--detach", str(tmp_path / "wt"), head)
    assert checkout_commit(str(tmp_path / "wt")) == head  # a .git file, detached HEAD
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "wt2"), second)
    assert checkout_commit(str(tmp_path / "wt2")) == second  # a branch via commondir
    assert checkout_commit(str(tmp_path)) is None  # not a checkout


def environment_table() -> set[str]:
    text = (ROOT / "docs/cli.md").read_text(encoding="utf-8").split("## Environment", 1)[1]
    rows = re.findall(r"^\| (`[^|]+`) \|", text, re.M)
    return {name for row in rows for name in re.findall(r"`([A-Z_]+)`", row)}


def test_help_lists_the_environment_docs_cli_describes(rq: Callable[..., Run]) -> None:
    r = rq("--help")
    listed = set(re.findall(r"^  ([A-Z][A-Z_]+)\b", r.out.split("environment:", 1)[1], re.M))
    listed |= {"EDITOR"} if re.search(r"^  VISUAL, EDITOR ", r.out, re.M) else set()
    documented = environment_table()
    assert len(documented) >= 12
    assert listed == documented


@pytest.mark.skipif(not have("make"), reason="make is not installed")
def test_make_install_puts_rq_on_the_path_and_uninstall_removes_it(tmp_path: Path) -> None:
    """Into a temporary HOME: the installed `rq --version` runs from outside the
    checkout (naming the commit it was built from), and `make uninstall` leaves
    nothing of it behind. (pip's real cache keeps this from downloading every time.)"""
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("MAKEFLAGS", None)
    env.pop("PREFIX", None)
    make = ["make", "--no-print-directory", "-C", str(ROOT)]
    p = subprocess.run(
        [*make, "install", f"HOME={home}"], env=env, capture_output=True, text=True, timeout=900
    )
    assert p.returncode == 0, p.stderr[-3000:]
    exe = home / ".local" / "bin" / "rq"
    assert exe.exists() and f"installed rq 0.1.0 as {exe}" in p.stdout
    v = subprocess.run(
        [str(exe), "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert v.returncode == 0, v.stderr
    name, commit, schema = v.stdout.splitlines()
    assert name == "rq 0.1.0" and schema == f"index schema {latest()}"
    built_from = checkout_commit(str(ROOT))
    assert commit == f"commit {built_from or 'unknown'}"
    # installed from a copy: the checkout is not what it runs
    real = Path(os.path.realpath(exe))
    assert ROOT not in real.parents
    u = subprocess.run(
        [*make, "uninstall", f"HOME={home}"], env=env, capture_output=True, text=True, timeout=300
    )
    assert u.returncode == 0, u.stderr
    assert not exe.exists() and not exe.is_symlink()
    assert not (home / ".local" / "share" / "rq" / "venv").exists()
    assert shutil.which("rq", path=str(home / ".local" / "bin")) is None
