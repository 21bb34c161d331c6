"""gitrun.Running: a git started with posix_spawn, read without loading select when
it is already done, waited for (bounded) when it is not. Real git, real processes."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.gitrun import Running
from tests.conftest import Repo


def test_an_answer_longer_than_a_pipe_holds_is_read_whole(
    make_repo: Callable[..., Repo], tmp_path: Path
) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    message = "".join(f"line {i} of a long message\n" for i in range(20_000))  # ~0.5 MB
    (tmp_path / "msg").write_text(message)
    repo.git("commit", "-q", "--allow-empty", "-F", str(tmp_path / "msg"))
    running = Running.start(repo.root, ("log", "-1", "--format=%B"))
    assert running is not None
    out = running.result()
    assert out is not None and out.decode().rstrip("\n") == message.rstrip("\n")


def test_an_answer_read_after_git_is_done(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({"a.py": "x = 1\n", "b.py": "y = 2\n"})
    running = Running.start(repo.root, ("ls-files", "-z"))
    assert running is not None
    os.waitid(os.P_PID, running.pid, os.WEXITED | os.WNOWAIT)  # done, not yet reaped
    assert running.result() == b"a.py\0b.py\0"


def test_a_failing_git_answers_none(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    running = Running.start(repo.root, ("rev-parse", "no-such-ref"))
    assert running is not None
    assert running.result() is None


def test_a_git_that_hangs_is_given_up_on_and_reaped(
    make_repo: Callable[..., Repo], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\necho started\nexec sleep 60\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    running = Running.start(repo.root, ("status",))
    assert running is not None
    assert running.result(timeout=0.3) is None
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie left behind
        os.waitpid(running.pid, os.WNOHANG)
