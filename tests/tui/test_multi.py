"""Several picks in one editor run, the popup's records, and paths shortened from the left."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rq_engine.core import editor
from rq_tui import tmux
from rq_tui.rows import column_widths, shorten_left

PICKS = [("/r/a.py", 3, "a.py:3:5:def a():"), ("/r/b.py", 9, "b.py:9:7:class B:")]


def which(name: str) -> str:
    return "/usr/bin/" + name


@pytest.mark.parametrize(
    ("exe", "args"),
    [
        ("nano", ["+3", "/r/a.py", "+9", "/r/b.py"]),
        ("hx", ["/r/a.py:3", "/r/b.py:9"]),
        ("code", ["--goto", "/r/a.py:3", "/r/b.py:9"]),
        ("idea", ["--line", "3", "/r/a.py"]),  # the first pick only
    ],
)
def test_several_picks_per_editor(exe: str, args: list[str]) -> None:
    cmd = editor.command_for_many(PICKS, {"EDITOR": exe}, which)
    assert cmd.argv == [exe, *args] and cmd.quickfix is None


def test_vim_gets_a_quickfix_file_that_launch_removes(tmp_path: Path) -> None:
    cmd = editor.command_for_many(PICKS, {"EDITOR": "true"}, which)  # not vim: no file
    assert cmd.quickfix is None
    cmd = editor.command_for_many(PICKS, {"EDITOR": "nvim"}, which, tmpdir=str(tmp_path))
    assert cmd.argv[:2] == ["nvim", "-q"] and cmd.quickfix == cmd.argv[2]
    assert Path(cmd.quickfix).read_text() == "a.py:3:5:def a():\nb.py:9:7:class B:\n"
    stub = editor.EditorCommand(["true"], "/bin/true", "EDITOR", "plain", cmd.quickfix)
    assert editor.launch(stub) == 0
    assert not Path(cmd.quickfix).exists()


@pytest.mark.skipif(not shutil.which("vim"), reason="vim is not installed")
def test_real_vim_lands_on_the_first_pick_and_lists_both(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n\n\ndef a():\n    pass\n")
    (tmp_path / "b.py").write_text("class B:\n    pass\n")
    picks = [(str(tmp_path / "a.py"), 4, "a.py:4:5:def a():"), (str(tmp_path / "b.py"), 1, "b.py:1:7:class B:")]  # fmt: skip
    cmd = editor.command_for_many(picks, {"EDITOR": "vim", "PATH": "/usr/bin:/bin"})
    out = tmp_path / "where"
    argv = [cmd.executable, "-es", "-u", "NONE", *cmd.argv[1:]]
    argv += ["-c", f"call writefile([expand('%:t') . ':' . line('.') . ':' . len(getqflist())], '{out}')", "-c", "qa!"]  # fmt: skip
    subprocess.run(argv, cwd=tmp_path, check=False, timeout=30, stdin=subprocess.DEVNULL)
    assert out.read_text().strip() == "a.py:4:2"


def test_the_popup_records_parse_into_picks(tmp_path: Path) -> None:
    text = "shop/a.py:3:5:def a(): x = 'a:1:2:'\0/abs/b.py:9:1:\0"
    assert tmux.parse_choice(text, tmp_path) == [
        (str(tmp_path / "shop/a.py"), 3, "shop/a.py:3:5:def a(): x = 'a:1:2:'"),
        ("/abs/b.py", 9, "/abs/b.py:9:1:"),
    ]


def test_popup_size_is_configurable() -> None:
    assert tmux.popup_size({}) == ("80%", "70%")
    assert tmux.popup_size({"RQ_TMUX_POPUP": "100%, 40"}) == ("100%", "40")


@pytest.mark.parametrize(
    ("text", "width", "shown"),
    [
        ("django/db/models/query.py:12", 40, "django/db/models/query.py:12"),
        ("django/db/models/query.py:12", 22, "…/models/query.py:12"),
        ("django/db/models/query.py:12", 12, "…query.py:12"),
    ],
)
def test_paths_are_shortened_from_the_left(text: str, width: int, shown: str) -> None:
    assert shorten_left(text, width) == shown


def test_the_name_keeps_its_room_and_the_path_gives_way() -> None:
    locs = ["rustc/compiler/rustc_middle/src/ty/context.rs:1200"]
    names = ["TyCtxt::create_global_ctxt_for_the_whole_session"]
    repo_w, path_w, kind_w, name_w = column_widths(locs, ["method"], names, [], 100)
    assert name_w >= len(names[0]) and path_w < len(locs[0])
