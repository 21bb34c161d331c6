"""`rq --tmux`: a real tmux server on its own socket, the picker in a popup, the editor in the calling pane."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Repo, rq_bin
from tests.tui.fixture import build_shop
from tests.tui.ptyproc import PtyProcess


def test_outside_tmux_it_says_so_and_exits_64(rq: Callable[..., object], tmp_path: Path) -> None:
    r = rq("--tmux", "Foo", cwd=tmp_path)
    assert (r.code, r.out, r.err) == (64, "", "rq: --tmux needs a tmux session\n")  # type: ignore[attr-defined]


def test_a_missing_editor_is_reported_before_the_popup(
    rq: Callable[..., object], tmp_path: Path
) -> None:
    # A TMUX value that names no server: rq must stop before it asks tmux anything.
    env = {"TMUX": f"{tmp_path}/no-server,1,0", "EDITOR": "no-such-editor-anywhere"}
    r = rq("--tmux", "Foo", cwd=tmp_path, env=env)
    assert r.code == 74 and r.out == ""  # type: ignore[attr-defined]
    assert r.err.startswith("rq: cannot start editor 'no-such-editor-anywhere'")  # type: ignore[attr-defined]


class Tmux:
    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def __call__(self, *args: str) -> str:
        r = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return r.stdout

    def pane_text(self) -> str:
        return self("capture-pane", "-p", "-J", "-t", "t")

    def wait_pane(self, needle: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.pane_text()
            if needle in text:
                return text
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} not in the pane:\n{text}")


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


@pytest.fixture
def tmux_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Tmux, dict[str, str], Path]]:
    if not shutil.which("tmux"):
        pytest.skip("tmux is not installed")
    record = tmp_path / "editor-argv.json"
    stand_in = tmp_path / "bin" / "nvim"  # a vi-family name: rq passes +LINE FILE
    stand_in.parent.mkdir()
    stand_in.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd(), 'tty': os.isatty(0)}}, open({str(record)!r}, 'w'))\n"
        "print('EDITOR-GOT', *sys.argv[1:])\n"
    )
    stand_in.chmod(0o755)
    # The server runs without the test's rq settings and with a HOME of its own: the
    # popup sees RQ_HOME, XDG_CONFIG_HOME, the editor and the directory only if rq
    # forwards them from the calling pane (where `exports()` sets them).
    mine = (
        "TMUX",
        "TMUX_PANE",
        "RQ_HOME",
        "RQ_CACHE",
        "XDG_CONFIG_HOME",
        "EDITOR",
        "RQ_WARM_DETACH",
    )
    env = {k: v for k, v in os.environ.items() if k not in mine}
    env.update(HOME=str(tmp_path / "server-home"), SHELL="/bin/sh", TERM="xterm-256color")
    (tmp_path / "server-home").mkdir()
    monkeypatch.setenv("EDITOR", str(stand_in))  # set in the pane by exports()
    tmux = Tmux(f"rq-test-{uuid.uuid4().hex[:12]}", env)
    try:
        yield tmux, env, record
        # nothing the popup did landed in the server's defaults
        assert not (tmp_path / "server-home" / ".local" / "share" / "rq").exists()
    finally:
        subprocess.run(
            ["tmux", "-L", tmux.socket, "kill-server"], env=env, capture_output=True, check=False
        )


def exports(shop: Repo) -> str:
    """The calling pane's shell line: the test's rq settings, then into the shop."""
    names = ("RQ_HOME", "RQ_CACHE", "XDG_CONFIG_HOME", "EDITOR", "RQ_WARM_DETACH")
    sets = " ".join(f"{n}={shlex.quote(os.environ[n])}" for n in names)
    return f"export {sets}; cd {shlex.quote(str(shop.root))}"


def _attached_session(tmux: Tmux, env: dict[str, str], shop: Repo) -> PtyProcess:
    """Session `t` running a shell (started in /, the server's environment), with a
    client attached on a pseudo-terminal: display-popup needs an attached client, and
    that terminal is also the keyboard the popup reads."""
    tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "50", "-c", "/", "/bin/sh")
    tmux("send-keys", "-t", "t", exports(shop), "Enter")
    return PtyProcess(
        ["tmux", "-L", tmux.socket, "-f", "/dev/null", "attach-session", "-t", "t"],
        cwd=shop.root,
        env=env,
        size=(200, 50),
    )


@pytest.mark.tmux
def test_escape_in_the_popup_exits_130_and_opens_nothing(
    shop: Repo, tmux_env: tuple[Tmux, dict[str, str], Path]
) -> None:
    tmux, env, record = tmux_env
    client = _attached_session(tmux, env, shop)
    try:
        client.expect("[t]", timeout=20)
        rq = " ".join(rq_bin())
        tmux("send-keys", "-t", "t", f"{rq} --tmux refund; printf 'RQ-%s=%s\\n' EXIT $?", "Enter")
        client.expect("F1 help", timeout=30)
        client.send("\x1b")
        text = tmux.wait_pane("RQ-EXIT=", timeout=30)
        assert "RQ-EXIT=130" in text
        assert not record.exists()
    finally:
        client.close()


@pytest.mark.tmux
@pytest.mark.parametrize("print_only", [False, True], ids=["editor", "print"])
def test_popup_picks_and_the_calling_pane_gets_the_choice(
    shop: Repo, tmux_env: tuple[Tmux, dict[str, str], Path], print_only: bool
) -> None:
    tmux, env, record = tmux_env
    client = _attached_session(tmux, env, shop)
    try:
        client.expect("[t]", timeout=20)  # tmux's status line names the session
        rq = " ".join(rq_bin())
        flags = "--tmux --print" if print_only else "--tmux"
        tmux(
            "send-keys",
            "-t",
            "t",
            f"{rq} {flags} refund_order; printf 'RQ-%s=%s\\n' EXIT $?",
            "Enter",
        )
        # The picker draws in the popup (only the client's terminal shows it, not the pane).
        client.expect("F1 help", timeout=30)
        client.expect("function", timeout=30)  # the result row's kind column
        assert "F1 help" not in tmux.pane_text()
        client.expect(" result", timeout=30)  # the status line's count: the search answered
        client.send("\r")
        text = tmux.wait_pane("RQ-EXIT=", timeout=30)  # printf's output, not the typed command
        assert "RQ-EXIT=0" in text
        if print_only:
            assert "shop/refunds.py:18" in text
            assert not record.exists()
        else:
            got = json.loads(record.read_text())
            assert got["argv"] == ["+18", str(shop.root / "shop" / "refunds.py")]
            assert got["cwd"] == str(shop.root)
            assert got["tty"] is True  # it runs on the calling pane's terminal
            assert "EDITOR-GOT" in text
    finally:
        client.close()
