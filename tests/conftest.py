"""Shared fixtures: every test gets its own RQ_HOME/RQ_CACHE; real git repos; real rq processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Keep the user's index, cache, config and editor out of every test."""
    home = tmp_path_factory.mktemp("rqhome")
    monkeypatch.setenv("RQ_HOME", str(home / "data"))
    monkeypatch.setenv("RQ_CACHE", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("RQ_WARM_DETACH", "0")
    for var in (
        *("VISUAL", "EDITOR", "RQ_THEME", "TMUX", "NO_COLOR"),
        # fault hooks and cache bounds a developer's shell may hold
        *("RQ_INDEX_KILL_AT", "RQ_INDEX_STOP_AT", "RQ_TEXT_CACHE_KILL_AT"),
        *("RQ_TEXT_CACHE_COMPACT_AT", "RQ_TEXT_CACHE_DETACH"),
    ):
        monkeypatch.delenv(var, raising=False)
    return home


def git(cwd: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout


@dataclass
class Repo:
    root: Path

    def write(self, rel: str, text: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        return p

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit(self, msg: str = "c") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", msg)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Repo]:
    """Build a real git repository: make_repo({"a.py": "..."}, name="r", remote=None)."""

    def make(
        files: dict[str, str] | None = None,
        name: str = "repo",
        remote: str | None = None,
        commit: bool = True,
    ) -> Repo:
        root = tmp_path / name
        root.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")
        if remote:
            git(root, "remote", "add", "origin", remote)
        repo = Repo(root)
        for rel, text in (files or {}).items():
            repo.write(rel, text)
        if commit:
            repo.commit("init")
        return repo

    return make


@dataclass
class Run:
    code: int
    out: str
    err: str


def rq_bin() -> list[str]:
    exe = Path(sys.executable).parent / "rq"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "rq_engine"]


@pytest.fixture
def rq() -> Callable[..., Run]:
    """Run the real `rq` process: rq("-q", "Foo", cwd=repo.root)."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 120,
        input: str | None = None,
    ) -> Run:
        p = subprocess.run(
            [*rq_bin(), *args],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
        return Run(p.returncode, p.stdout, p.stderr)

    return run


def rq_running_first(tmp_path: Path, code: str) -> dict[str, str]:
    """The environment of an rq process that runs `code` before anything else (a
    `sitecustomize` on PYTHONPATH): how a test stands in for a newer rq."""
    d = tmp_path / "rq-site"
    d.mkdir(exist_ok=True)
    (d / "sitecustomize.py").write_text(code)
    return {"PYTHONPATH": os.pathsep.join([str(d), os.environ.get("PYTHONPATH", "")])}


def racing_git(tmp_path: Path, query: str) -> tuple[dict[str, str], Path]:
    """A `git` on PATH that, the first time it is asked for `status`, runs a second
    `rq -q QUERY` to the end before answering: the race of two queries right after
    one edit, made to happen every time. Returns (the PATH to run rq with, the log
    of the second rq's output and exit code)."""
    import stat

    bin_dir = tmp_path / "racer"
    bin_dir.mkdir()
    log = tmp_path / "racer.log"
    rq_cmd = " ".join(f"'{part}'" for part in rq_bin())
    git_bin = bin_dir / "git"
    git_bin.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" status "*)\n'
        '  if [ -z "$RACER_INSIDE" ]; then\n'
        f'    RACER_INSIDE=1 {rq_cmd} -q {query} >> {log} 2>&1; echo "exit $?" >> {log}\n'
        "  fi;;\n"
        "esac\n"
        f'exec {shutil.which("git")} "$@"\n'
    )
    git_bin.chmod(git_bin.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}, log


def read_pty(master: int) -> str:
    """Everything written to a pseudo-terminal until its last writer closes it (Linux
    reports that as EIO, not end of file)."""
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode()


def corpus(name: str) -> Path:
    """A corpus from shared/corpora/get.sh, or skip the test with the reason."""
    p = CORPORA / name
    if not (p / ".git").exists():
        pytest.skip(
            f"corpus {name!r} not laid out under {CORPORA} (run shared/corpora/get.sh {name})"
        )
    return p


def have(tool: str) -> bool:
    return shutil.which(tool) is not None
