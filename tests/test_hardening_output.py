"""A repository's names cannot forge a result line or drive the terminal; JSON stays exact.

A real git repository whose file name holds ESC sequences and a newline (git
stores it as it is), searched by real `rq` processes: in a pipe, on a
pseudo-terminal with colour, with --explain, with --text, in the picker.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, rq_bin

# Cleared screen, red text, then a newline and what looks like a second result.
EVIL = "x\x1b[2J\x1b[31mowned\nfake.py:1  function  forged.py"
SHOWN = "x\\x1b[2J\\x1b[31mowned\\nfake.py:1  function  forged.py"
BRACKETS = "br[b]ack[/b]et.py"
SRC = {
    EVIL: (
        "def forged_result():\n    pass\n\n\n"
        "class Evil:\n    def method(self):\n        return '\x1b[31mraw'\n"
    ),
    BRACKETS: "def bracket_fn():\n    pass\n",
}


@pytest.fixture
def evil(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(SRC)
    assert EVIL in repo.git("ls-files", "-z").split("\0")  # git keeps the name whole
    assert rq("--index", str(repo.root)).code == 0
    return repo


def test_plain_output_shows_control_characters_as_escapes(
    evil: Repo, rq: Callable[..., Run]
) -> None:
    r = rq("-q", "forged_result", cwd=evil.root)
    assert r.code == 0 and r.err == ""
    assert r.out.splitlines() == [f"{SHOWN}:1  function  forged_result"]  # one line, not two
    explained = rq("-q", "--explain", "Evil.method", cwd=evil.root)
    lines = explained.out.splitlines()
    assert lines[0] == f"{SHOWN}:6  method  Evil.method"
    assert all(line.startswith("    ") for line in lines[1:])  # only its breakdown follows
    for out in (r.out, explained.out):
        assert "\x1b" not in out and "\r" not in out
    brackets = rq("-q", "bracket_fn", cwd=evil.root)
    assert brackets.out == f"{BRACKETS}:1  function  bracket_fn\n"


def test_json_and_ndjson_keep_the_exact_path(evil: Repo, rq: Callable[..., Run]) -> None:
    doc = json.loads(rq("-q", "--json", "forged_result", cwd=evil.root).out)
    assert [h["path"] for h in doc["results"]] == [EVIL]
    lines = rq("-q", "--ndjson", "Evil", cwd=evil.root).out.splitlines()
    assert {json.loads(line)["path"] for line in lines} == {EVIL}


def test_on_a_terminal_nothing_from_the_repository_reaches_it_raw(
    evil: Repo, rq: Callable[..., Run]
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _on_a_terminal(["-q", "forged_result"], evil, env)
    assert "\x1b[36m" in coloured  # rq's own colour is there…
    assert "\x1b[2J" not in coloured and "\x1b[31mowned" not in coloured  # …the name's is not
    assert SHOWN in coloured and "forged.py:1" in coloured
    plain = _on_a_terminal(["-q", "forged_result"], evil, {**env, "NO_COLOR": "1"})
    assert plain.replace("\r\n", "\n") == f"{SHOWN}:1  function  forged_result\n"


def test_text_query_plain_output_escapes_and_json_is_exact(
    evil: Repo, rq: Callable[..., Run]
) -> None:
    r = rq("--text", "forged result", cwd=evil.root)
    assert r.code == 0 and "\x1b" not in r.out
    first = r.out.splitlines()[0]
    assert first.startswith(f"{SHOWN}:1  function  forged_result  (in: {SHOWN})")
    assert len(r.out.splitlines()) == len(
        json.loads(rq("--text", "forged result", "--json", cwd=evil.root).out)["results"]
    )  # a line a result: none split by the name's newline
    doc = json.loads(rq("--text", "forged result", "--json", cwd=evil.root).out)
    assert doc["results"][0]["path"] == EVIL


def test_diagnostics_naming_a_path_escape_it_too(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"a.py": "def a():\n    pass\n"}, name="r\x1b[31mdir")
    r = rq("-q", "--no-wait", "Zebra", cwd=repo.root)  # never indexed: a note naming the root
    assert r.code == 2 and "\x1b" not in r.err
    assert "r\\x1b[31mdir" in r.err and len(r.err.splitlines()) == 1
    gone = rq("-q", "-C", str(repo.root / "no\x1b[2Jwhere"), "Zebra")
    assert gone.code == 64 and "no\\x1b[2Jwhere" in gone.err and "\x1b" not in gone.err


def test_the_picker_shows_the_name_escaped(evil: Repo) -> None:
    from tests.tui.ptyproc import PtyProcess

    p = PtyProcess([*rq_bin(), "forged_result"], cwd=evil.root, env=dict(os.environ))
    try:
        p.expect("forged_result")
        p.expect("\\x1b[31mowned")
        assert "\x1b[31mowned" not in p.raw and "\x1b[2J\x1b[31m" not in p.raw
        p.send("\x1b")
        assert p.wait() == 130
    finally:
        p.close()


def _on_a_terminal(args: list[str], repo: Repo, env: dict[str, str]) -> str:
    import pty
    import subprocess

    from tests.conftest import read_pty

    master, slave = pty.openpty()
    p = subprocess.Popen(
        [*rq_bin(), *args], cwd=repo.root, stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    out = read_pty(master)
    p.wait(timeout=60)
    os.close(master)
    return out


def test_the_picker_panes_show_names_and_source_escaped(evil: Repo) -> None:
    from textual.content import Content
    from textual.pilot import Pilot
    from textual.widgets import Static

    from rq_tui.app import PickerApp
    from tests.tui.test_pilot import drive, results, settle

    app = PickerApp(cwd=evil.root, query="Evil.method")

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot)  # (past the preview's delay: it is highlighted once the row rests)
        row = results(app).render_line(0).text
        # the row shows the path's escaped tail (long paths are cut from the left, after
        # the marker column), never the raw control characters
        assert SHOWN[-12:] in row and "\x1b" not in row and "\n" not in row

        def shown(widget: str) -> str:
            visual = app.picker.query_one(widget, Static).render()
            assert isinstance(visual, Content)
            return visual.plain

        assert shown("#preview-title") == f"{SHOWN}:6"
        assert "return '\\x1b[31mraw'" in shown("#preview")  # the source's raw ESC
        for widget in ("#preview-title", "#preview", "#explain", "#status"):
            assert "\x1b" not in shown(widget), widget

    drive(app, script)
    brackets = PickerApp(cwd=evil.root, query="bracket_fn")

    async def literal(pilot: Pilot[object]) -> None:
        assert results(brackets).render_line(0).text.lstrip().startswith(f"{BRACKETS}:1")

    drive(brackets, literal)


# An index directory whose name holds a newline and a colour: RQ_HOME is the user's.
HOME_NAME = "rq\nhome\x1b[31m"
HOME_SHOWN = "rq\\nhome\\x1b[31m"


@pytest.mark.parametrize("indexed", [False, True], ids=["no-index", "indexed"])
def test_check_and_usage_show_the_index_path_escaped(
    indexed: bool, tmp_path: Path, make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    home = tmp_path / HOME_NAME
    env = {"RQ_HOME": str(home)}
    db = f"{home}/index.db"
    if indexed:
        repo = make_repo({"a.py": "def alpha():\n    pass\n"})
        assert rq("--index", str(repo.root), env=env).code == 0
    for argv in (["--check"], ["--usage"], ["--status"]):
        r = rq(*argv, env=env)
        assert r.code == 0, (argv, r.err)
        assert "\x1b" not in r.out + r.err, (argv, r.out)
        if argv != ["--usage"] or not indexed:  # (a usage table names no path)
            assert db.replace(HOME_NAME, HOME_SHOWN) in r.out, (argv, r.out)
    # JSON carries the exact path (and --usage --json is JSON with no index too)
    assert json.loads(rq("--check", "--json", env=env).out)["index"] == db
    usage = json.loads(rq("--usage", "--json", env=env).out)
    assert isinstance(usage, list)
