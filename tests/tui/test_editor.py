"""Editor hand-off: the line syntax per editor, which editor is chosen, and a real launch."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rq_engine.core import editor

# (editor command, expected argv for FILE at line 42); mirrors docs/EDITORS.md.
CASES = [
    ("vi", ["vi", "+42", "F"]),
    ("vim", ["vim", "+42", "F"]),
    ("/usr/bin/vim.basic", ["/usr/bin/vim.basic", "+42", "F"]),
    ("nvim", ["nvim", "+42", "F"]),
    ("gvim -f", ["gvim", "-f", "+42", "F"]),
    ("kak", ["kak", "+42", "F"]),
    ("emacs", ["emacs", "+42", "F"]),
    ("emacsclient -t", ["emacsclient", "-t", "+42", "F"]),
    ("emacs-29.1", ["emacs-29.1", "+42", "F"]),
    ("nano", ["nano", "+42", "F"]),
    ("micro", ["micro", "+42", "F"]),
    ("hx", ["hx", "F:42"]),
    ("helix", ["helix", "F:42"]),
    ("code --wait", ["code", "--wait", "--goto", "F:42"]),
    ("codium -w", ["codium", "-w", "--goto", "F:42"]),
    ("code-insiders", ["code-insiders", "--goto", "F:42"]),
    ("subl -w", ["subl", "-w", "F:42"]),
    ("sublime_text", ["sublime_text", "F:42"]),
    ("zed --wait", ["zed", "--wait", "F:42"]),
    ("idea", ["idea", "--line", "42", "F"]),
    ("pycharm", ["pycharm", "--line", "42", "F"]),
    ("/opt/jb/bin/goland.sh", ["/opt/jb/bin/goland.sh", "--line", "42", "F"]),
    ("rubymine", ["rubymine", "--line", "42", "F"]),
    ("webstorm", ["webstorm", "--line", "42", "F"]),
    ("clion", ["clion", "--line", "42", "F"]),
    ("rustrover", ["rustrover", "--line", "42", "F"]),
    ("charm", ["charm", "--line", "42", "F"]),
    ("kate", ["kate", "--line", "42", "F"]),
    ("mate -w", ["mate", "-w", "-l", "42", "F"]),
    ("ed", ["ed", "F"]),  # unknown: the file only, never a `+42` it could take for a name
    ("my-editor --flag", ["my-editor", "--flag", "F"]),
]


def always(name: str) -> str | None:
    return "/bin/" + name


@pytest.mark.parametrize(("value", "argv"), CASES)
def test_line_syntax_per_editor(value: str, argv: list[str]) -> None:
    cmd = editor.command_for("F", 42, {"EDITOR": value}, which=always)
    assert cmd.argv == argv
    assert cmd.source == "EDITOR"


def test_visual_wins_over_editor() -> None:
    cmd = editor.command_for("F", 7, {"VISUAL": "hx", "EDITOR": "vim"}, which=always)
    assert (cmd.argv, cmd.source) == (["hx", "F:7"], "VISUAL")


def test_blank_visual_falls_back_to_editor() -> None:
    cmd = editor.command_for("F", 7, {"VISUAL": "  ", "EDITOR": "nano"}, which=always)
    assert cmd.argv == ["nano", "+7", "F"]


def test_quoted_editor_path_is_split_like_a_shell() -> None:
    env = {"EDITOR": "'/opt/My Editors/nvim' --clean"}
    cmd = editor.command_for("a b.py", 3, env, which=always)
    assert cmd.argv == ["/opt/My Editors/nvim", "--clean", "+3", "a b.py"]


def test_line_below_one_is_clamped() -> None:
    assert editor.line_args("plus-line", "F", 0) == ["+1", "F"]


def make_exe(d: Path, name: str, body: str = "#!/bin/sh\nexit 0\n") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text(body)
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return p


def test_default_is_first_of_nvim_vim_vi_nano_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "nano")
    make_exe(bin_dir, "vi")
    cmd = editor.command_for("F", 9, {"PATH": str(bin_dir)})
    assert (cmd.argv, cmd.source) == (["vi", "+9", "F"], "default")


def test_no_editor_at_all_is_an_error_naming_the_variables(tmp_path: Path) -> None:
    with pytest.raises(editor.EditorNotFound, match=r"\$VISUAL or \$EDITOR"):
        editor.command_for("F", 9, {"PATH": str(tmp_path)})


def test_editor_not_on_path_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(editor.EditorNotFound, match="'nosuch-editor'.*EDITOR"):
        editor.command_for("F", 9, {"PATH": str(tmp_path), "EDITOR": "nosuch-editor -w"})


def test_unbalanced_quotes_are_an_error() -> None:
    with pytest.raises(editor.EditorNotFound, match="VISUAL"):
        editor.command_for("F", 9, {"VISUAL": "vim '"}, which=always)


def stand_in(tmp_path: Path, name: str = "nvim", code: int = 0) -> tuple[Path, Path]:
    """An editor stand-in that records its argv and cwd as JSON and exits with `code`."""
    record = tmp_path / "argv.json"
    script = make_exe(
        tmp_path / "bin",
        name,
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))\n"
        f"sys.exit({code})\n",
    )
    return script, record


def test_launch_runs_the_editor_with_its_arguments(tmp_path: Path) -> None:
    script, record = stand_in(tmp_path, "nvim", code=3)
    env = {"PATH": f"{script.parent}{os.pathsep}{os.environ['PATH']}", "EDITOR": "nvim -R"}
    cmd = editor.command_for("/abs/x.py", 12, env)
    assert editor.launch(cmd, cwd=str(tmp_path)) == 3  # the editor's exit code is rq's
    got = json.loads(record.read_text())
    assert got == {"argv": ["-R", "+12", "/abs/x.py"], "cwd": str(tmp_path)}


def test_launch_of_a_non_executable_is_an_editor_error(tmp_path: Path) -> None:
    bad = tmp_path / "noexec"
    bad.write_text("#!/bin/sh\n")
    with pytest.raises(editor.EditorNotFound, match="cannot start editor"):
        editor.launch([str(bad), "F"])
