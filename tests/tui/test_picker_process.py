"""The real `rq` picker process on a pseudo-terminal: exit codes, stdout, stderr."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, rq_bin
from tests.tui.fixture import build_shop
from tests.tui.ptyproc import PtyProcess


def spawn(*args: str, cwd: Path, stdout_pipe: bool = True, **kw: object) -> PtyProcess:
    return PtyProcess(
        [*rq_bin(), *args], cwd=cwd, env=dict(os.environ), stdout_pipe=stdout_pipe, **kw
    )  # type: ignore[arg-type]


def test_ctrl_c_exits_130_with_nothing_on_stdout(tmp_path: Path) -> None:
    p = spawn("--print", cwd=tmp_path)
    p.expect("F1 help")
    p.send("\x03")
    assert p.wait() == 130
    assert p.stdout == ""


def test_escape_exits_130_with_nothing_on_stdout(tmp_path: Path) -> None:
    p = spawn("--print", "abc", cwd=tmp_path)
    p.expect("F1 help")
    p.send("\x1b")
    assert p.wait() == 130
    assert p.stdout == ""


def test_unknown_theme_is_one_line_and_exit_64(tmp_path: Path) -> None:
    p = spawn("--theme", "nope", cwd=tmp_path, stdout_pipe=False)
    assert p.wait() == 64
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    assert lines == [lines[0]] and lines[0].startswith("rq: unknown theme 'nope'")


def test_print_writes_path_line_to_stdout_and_exits_0(make_repo: Callable[..., Repo]) -> None:
    shop = build_shop(make_repo)
    p = spawn("--print", "find_by_id", cwd=shop.root)
    p.expect("find_by_id")
    p.expect("F1 help")
    p.expect(" result")  # the status line's count: the prefilled search has answered
    p.send("\r")
    assert p.wait() == 0
    assert p.stdout == "shop/orders.py:16\n"


def test_enter_opens_the_editor_on_the_terminal_at_the_line(
    make_repo: Callable[..., Repo], tmp_path: Path
) -> None:
    shop = build_shop(make_repo)
    record = tmp_path / "argv.json"
    exe = tmp_path / "bin" / "hx"  # helix: FILE:LINE
    exe.parent.mkdir()
    exe.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'tty': os.isatty(0) and os.isatty(1)}}, open({str(record)!r}, 'w'))\n"
        "sys.exit(7)\n"
    )
    exe.chmod(0o755)
    p = PtyProcess(
        [*rq_bin(), "refund_order"],
        cwd=shop.root,
        env={**os.environ, "EDITOR": str(exe)},
    )
    p.expect("refund_order")
    p.expect("F1 help")
    p.expect(" result")  # the status line's count: the prefilled search has answered
    p.send("\r")
    assert p.wait() == 7  # the editor's exit code
    got = json.loads(record.read_text())
    assert got == {"argv": [f"{shop.root}/shop/refunds.py:18"], "tty": True}


def test_a_picker_whose_terminal_goes_away_exits(tmp_path: Path) -> None:
    """A closed window or a dropped session hangs the terminal up: the picker ends
    (exit 129, as on SIGHUP) instead of reading end-of-file forever on a spinning core
    — also when SIGHUP is ignored (nohup, a shell's `trap '' HUP`), as it was for a
    picker found spinning half an hour after its test had ended."""
    ignoring = ["sh", "-c", 'trap "" HUP; exec "$@"', "sh", *rq_bin(), "--print"]
    p = PtyProcess(ignoring, cwd=tmp_path, env=dict(os.environ), stdout_pipe=True)
    try:
        p.expect("F1 help")
        os.close(p.master)
        assert p.proc.wait(timeout=60) == 129  # (the timeout only bounds a failure)
    finally:
        if p.proc.poll() is None:
            p.proc.kill()  # (a picker that survived must not spin on after the test)


def test_the_picker_ranks_from_its_anchor(make_repo: Callable[..., Repo]) -> None:
    """`rq --anchor FILE:LINE` (an editor opening the picker at its cursor): of two
    equally good `foo`s, the one enclosing the anchor comes first — either way round."""
    code = "class A:\n    def foo(self):\n        pass\n\n\nclass B:\n    def foo(self):\n        pass\n"
    repo = make_repo({"m.py": code}, name="anchored")
    assert (
        subprocess.run([*rq_bin(), "--index", "."], cwd=repo.root, capture_output=True).returncode
        == 0
    )
    for line, want in ((3, "m.py:2\n"), (8, "m.py:7\n")):
        p = spawn("--print", "--anchor", f"m.py:{line}", "foo", cwd=repo.root)
        p.expect("F1 help")
        # both foos are listed: the search has answered. (Not the status line's
        # count: Textual rewrites only the cells that changed, so under load the
        # count can reach the terminal in pieces, never as one string.)
        p.expect("A.foo")
        p.expect("B.foo")
        p.send("\r")
        assert p.wait() == 0
        assert p.stdout == want
