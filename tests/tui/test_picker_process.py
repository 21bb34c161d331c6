"""The real `rq` picker process on a pseudo-terminal: exit codes, stdout, stderr."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import rq_bin
from tests.tui.ptyproc import PtyProcess


def spawn(*args: str, cwd: Path, stdout_pipe: bool = True, **kw: object) -> PtyProcess:
    return PtyProcess(
        [*rq_bin(), *args], cwd=cwd, env=dict(os.environ), stdout_pipe=stdout_pipe, **kw
    )  # type: ignore[arg-type]


def test_ctrl_c_exits_130_with_nothing_on_stdout(tmp_path: Path) -> None:
    p = spawn("--print", cwd=tmp_path)
    p.expect("? help")
    p.send("\x03")
    assert p.wait() == 130
    assert p.stdout == ""


def test_escape_exits_130_with_nothing_on_stdout(tmp_path: Path) -> None:
    p = spawn("--print", "abc", cwd=tmp_path)
    p.expect("? help")
    p.send("\x1b")
    assert p.wait() == 130
    assert p.stdout == ""


def test_unknown_theme_is_one_line_and_exit_64(tmp_path: Path) -> None:
    p = spawn("--theme", "nope", cwd=tmp_path, stdout_pipe=False)
    assert p.wait() == 64
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    assert lines == [lines[0]] and lines[0].startswith("rq: unknown theme 'nope'")
