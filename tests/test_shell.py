"""`rq --shell bash|zsh|fish`: the widgets run in a real interactive shell on a pty, completion.

The bash tests start `bash --norc -i` on a pseudo-terminal, eval the snippet as a
user's ~/.bashrc would, press the widget's key, drive the real picker over the
indexed shop fixture and read what the shell then does with the command line.
zsh and fish are driven the same way when installed (skipped, named, when not).
Last, `--bind`, RQ_BIND's flag form, on the real picker.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.cli.parser import build_parser
from rq_engine.cli.shell import options
from tests.conftest import Repo, Run, rq_bin
from tests.tui.fixture import build_shop
from tests.tui.ptyproc import PtyProcess

ALT_I, ALT_J = "\x1bi", "\x1bj"


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


@pytest.fixture
def path_with_rq(tmp_path: Path) -> str:
    """A PATH whose `rq` is the rq under test (the snippet calls `rq` by name)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "rq"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(rq_bin())} "$@"\n')
    wrapper.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def start(argv: list[str], shop: Repo, path: str, **env: str) -> PtyProcess:
    return PtyProcess(argv, cwd=shop.root, env={**os.environ, "PATH": path, **env}, size=(120, 35))


def pick_refund_order(sh: PtyProcess) -> None:
    """In the picker the widget opened: type the query, wait for its row, Enter."""
    sh.expect("F1 help", timeout=30)
    sh.type("refund_order")
    sh.expect("function", timeout=30)  # the result row's kind column
    sh.expect(" result", timeout=30)  # the status line's count: the search answered
    sh.send("\r")


def wait_line(sh: PtyProcess, line: str, timeout: float = 30) -> None:
    """Wait until the shell shows its prompt with `line` again (the picker has exited and
    the shell redrew its line): keys sent before that would reach the picker instead."""
    sh.expect_raw(lambda _: sh.text.rstrip("\r\n").endswith("$ " + line), f"$ {line}", timeout)


# --- bash --------------------------------------------------------------------------


def bash(shop: Repo, path: str, **env: str) -> PtyProcess:
    sh = start(["bash", "--norc", "--noprofile", "-i"], shop, path, PS1="$ ", **env)
    # (what a command prints is told apart from its echoed line by arithmetic: RQ-READY-42)
    sh.send('eval "$(rq --shell bash)"; echo RQ-READY-$((6*7))\r')
    sh.expect("RQ-READY-42\r\n", timeout=30)
    return sh


@pytest.mark.skipif(not shutil.which("bash"), reason="bash is not installed")
def test_bash_alt_i_inserts_the_pick_at_the_cursor(shop: Repo, path_with_rq: str) -> None:
    sh = bash(shop, path_with_rq)
    try:
        sh.send("printf '<%s>' A B")
        sh.send("\x02")  # ctrl-b: the cursor before B
        sh.send(ALT_I)
        pick_refund_order(sh)
        # The picker gone, the line redrawn with the pick where the cursor was.
        sh.expect("A shop/refunds.py:18 B", timeout=30)
        sh.send("\x05; echo\r")  # ctrl-e: to the end, then run it
        sh.expect("<A><shop/refunds.py:18><B>", timeout=30)
        sh.send("exit\r")
        assert sh.wait(timeout=20) == 0
    finally:
        sh.close()


@pytest.mark.skipif(not shutil.which("bash"), reason="bash is not installed")
def test_bash_alt_i_then_esc_leaves_the_line_as_it_was(shop: Repo, path_with_rq: str) -> None:
    sh = bash(shop, path_with_rq)
    try:
        sh.send("echo KEPT-$((6*7))")
        sh.send(ALT_I)
        sh.expect("F1 help", timeout=30)
        sh.send("\x1b")
        wait_line(sh, "echo KEPT-$((6*7))")
        sh.send("\r")
        sh.expect("KEPT-42\r\n", timeout=30)
        sh.send("exit\r")
        assert sh.wait(timeout=20) == 0
    finally:
        sh.close()


@pytest.mark.skipif(not shutil.which("bash"), reason="bash is not installed")
def test_bash_alt_j_opens_the_pick_in_the_editor(
    shop: Repo, path_with_rq: str, tmp_path: Path
) -> None:
    record = tmp_path / "editor-argv.json"
    stand_in = tmp_path / "editor" / "nvim"  # a vi-family name: rq passes +LINE FILE
    stand_in.parent.mkdir()
    stand_in.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'tty': os.isatty(0)}}, open({str(record)!r}, 'w'))\n"
    )
    stand_in.chmod(0o755)
    sh = bash(shop, path_with_rq, EDITOR=str(stand_in))
    try:
        sh.send(ALT_J)
        pick_refund_order(sh)
        wait_line(sh, "")  # the editor ran and rq returned to the prompt
        got = json.loads(record.read_text())
        assert got == {"argv": ["+18", str(shop.root / "shop" / "refunds.py")], "tty": True}
        sh.send("exit\r")
        assert sh.wait(timeout=20) == 0
    finally:
        sh.close()


@pytest.mark.skipif(not shutil.which("bash"), reason="bash is not installed")
def test_bash_completes_the_flags(shop: Repo, path_with_rq: str) -> None:
    sh = bash(shop, path_with_rq)
    try:
        sh.send("rq --anc\t")
        wait_line(sh, "rq --anchor ")
        sh.send("\x01printf '<%s>' \r")  # ctrl-a: run the completed line as printf's words
        sh.expect("<rq><--anchor>", timeout=30)
        sh.send("exit\r")
        assert sh.wait(timeout=20) == 0
    finally:
        sh.close()


# --- zsh and fish: the same widget, when installed ---------------------------------


@pytest.mark.parametrize(
    ("shell", "argv", "setup"),
    [
        pytest.param(
            "zsh",
            ["zsh", "-f", "-i"],
            'PS1="$ "; eval "$(rq --shell zsh)"; echo RQ-READY-$((6*7))\r',
        ),
        (
            "fish",
            ["fish", "--no-config", "-i"],
            "function fish_prompt; echo '$ '; end; rq --shell fish | source;"
            " echo RQ-READY-(math 6 '*' 7)\r",
        ),
    ],
)
def test_zsh_and_fish_alt_i_inserts_the_pick(
    shell: str, argv: list[str], setup: str, shop: Repo, path_with_rq: str
) -> None:
    if not shutil.which(shell):
        pytest.skip(f"{shell} is not installed")
    sh = start(argv, shop, path_with_rq)
    try:
        sh.send(setup)
        sh.expect("RQ-READY-42\r\n", timeout=30)
        sh.send("printf '<%s>' A ")
        sh.send(ALT_I)
        pick_refund_order(sh)
        # the picker has left the screen and the shell redrawn its line with the pick:
        # only then type on (keys typed while the picker still owns the terminal are its)
        sh.expect_raw(lambda raw: "\x1b[?1049l" in raw, "the picker leaving the screen")
        sh.expect_raw(
            # (no trailing space: zsh redraws by moving the cursor over it, not printing it)
            lambda raw: "shop/refunds.py:18" in raw[raw.rindex("\x1b[?1049l") :],
            "the pick on the shell's line",
        )
        sh.send("; echo\r")
        sh.expect("<A><shop/refunds.py:18>", timeout=30)
    finally:
        sh.close()


# --- what is printed ---------------------------------------------------------------


def flags() -> list[str]:
    return [s for a in options(build_parser()) for s in a.option_strings]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_names_every_flag_of_the_parser(shell: str, rq: Callable[..., Run]) -> None:
    r = rq("--shell", shell)
    assert r.code == 0 and r.err == ""
    assert "--text" in flags() and "--anchor" in flags()
    for flag in flags():
        if shell == "fish":
            form = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
            assert form in r.out, flag
        else:
            assert flag in r.out, flag
    assert "--warm" not in r.out  # the hidden, internal flag


@pytest.mark.parametrize(
    ("shell", "check"),
    [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])],
)
def test_each_snippet_parses_in_its_shell(
    shell: str, check: list[str], rq: Callable[..., Run], tmp_path: Path
) -> None:
    if not shutil.which(check[0]):
        pytest.skip(f"{shell} is not installed")
    script = tmp_path / f"rq.{shell}"
    script.write_text(rq("--shell", shell).out)
    out = subprocess.run([*check, str(script)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shell", "tcsh"], "rq: --shell tcsh: rq knows bash, zsh, fish\n"),
        (["--shell", "bash", "Foo"], "rq: --shell bash takes no query\n"),
        (["--shell", "bash", "--man"], "rq: --shell and --man are exclusive\n"),
    ],
)
def test_an_unknown_shell_is_a_usage_error(
    argv: list[str], message: str, rq: Callable[..., Run]
) -> None:
    r = rq(*argv)
    assert (r.code, r.out, r.err) == (64, "", message)


# --- --bind: RQ_BIND as a flag -------------------------------------------------------


def picker(shop: Repo, *args: str, **env: str) -> PtyProcess:
    """`rq --print ARGS` on a pty, stdout captured (as `x=$(rq --print …)`)."""
    return PtyProcess(
        [*rq_bin(), "--print", *args],
        cwd=shop.root,
        env={**os.environ, **env},
        stdout_pipe=True,
    )


def test_bind_rebinds_a_key_and_wins_over_rq_bind(shop: Repo) -> None:
    # RQ_BIND says ctrl-x quits; the flag, which replaces it, says ctrl-x accepts.
    p = picker(shop, "--bind", "ctrl-x:accept", "refund_order", RQ_BIND="ctrl-x:abort")
    p.expect(" result")
    p.send("\x18")  # ctrl-x
    assert p.wait() == 0
    assert p.stdout == "shop/refunds.py:18\n"


def test_bind_replaces_a_bad_rq_bind_and_repeats(shop: Repo) -> None:
    p = picker(
        shop, "--bind", "ctrl-x:toggle-all,", "--bind", "ctrl-o:accept", "order",
        RQ_BIND="ctrl-a:launch-rockets",
    )  # fmt: skip
    p.expect(" result")
    p.send("\x18")  # ctrl-x: mark every listed result
    p.expect(" marked")
    p.send("\x0f")  # ctrl-o: print them
    assert p.wait() == 0
    assert len(p.stdout.splitlines()) > 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ctrl-a:launch-rockets", "rq: --bind: unknown action 'launch-rockets' for 'ctrl-a' "
         "(the actions are listed in docs/guide.md and on F1)"),
        ("hyper-a:abort", "rq: --bind: unknown key 'hyper-a'"),
        ("ctrl-a", "rq: --bind: 'ctrl-a' has no ':ACTION' (write KEY:ACTION)"),
    ],
)  # fmt: skip
def test_a_bad_bind_is_one_line_and_exit_64(
    spec: str, message: str, shop: Repo, rq: Callable[..., Run]
) -> None:
    p = PtyProcess([*rq_bin(), "--print", "--bind", spec], cwd=shop.root, env=dict(os.environ))
    assert p.wait() == 64
    assert [ln for ln in p.text.splitlines() if ln.strip()] == [message]
    # whatever the face: a one-shot query refuses it too, before searching
    r = rq("-q", "--bind", spec, "refund", cwd=shop.root)
    assert (r.code, r.out, r.err) == (64, "", message + "\n")
