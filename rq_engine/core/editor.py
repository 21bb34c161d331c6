"""Editor hand-off: which editor to run and the argv that opens FILE at LINE in it.

Stdlib only (no textual, no rich): `rq --tmux` uses it in the calling pane
without paying for the UI imports. The per-editor line syntax is documented in
docs/EDITORS.md; keep the two in step.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence

from rq_engine.core.record import Record

# Tried in order when neither $VISUAL nor $EDITOR is set.
DEFAULT_EDITORS = ("nvim", "vim", "vi", "nano")

# Editor families by the executable's base name (see family()).
_PLUS_LINE = {  # `+LINE FILE`
    "vi", "vim", "nvim", "gvim", "mvim", "view", "vimx", "ex", "elvis", "nvi",
    "kak", "kakoune",
    "emacs", "emacsclient", "xemacs", "mg", "jove",
    "nano", "pico", "rnano", "micro", "joe", "jmacs", "jstar", "jpico", "ne", "mcedit",
    "gedit", "gnome-text-editor", "mousepad", "pluma", "xed",
}  # fmt: skip
_COLON = {  # `FILE:LINE`
    "hx", "helix",
    "subl", "sublime_text", "sublime-text", "sublime",
    "zed", "zeditor",
}  # fmt: skip
_GOTO = {"code", "code-insiders", "codium", "vscodium", "code-oss", "cursor", "windsurf"}
_JETBRAINS = {
    "idea", "idea64", "intellij-idea-ultimate", "intellij-idea-community",
    "pycharm", "pycharm64", "pycharm-community", "pycharm-professional",
    "goland", "goland64", "rubymine", "rubymine64", "webstorm", "webstorm64",
    "clion", "clion64", "rustrover", "rustrover64", "phpstorm", "phpstorm64",
    "rider", "rider64", "datagrip", "fleet", "charm", "studio", "studio64",
}  # fmt: skip


class EditorNotFound(Exception):
    """The configured editor cannot be started; the message says which one and why."""


class EditorCommand(Record):
    """What launch() runs; built once, never changed (frozen by convention: Record has no frozen form)."""

    argv: list[str]
    executable: str  # argv[0] resolved on PATH: what launch() runs
    source: str  # "VISUAL", "EDITOR" or "default": where the editor came from
    family: str  # plus-line | colon | goto | jetbrains | kate | mate | plain (see line_args)
    quickfix: str | None = None  # a temporary errorfile (vim -q): launch() removes it


def _base(exe: str) -> str:
    name = os.path.basename(exe).lower()
    for suffix in (".exe", ".cmd", ".bat", ".sh", ".appimage"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def family(exe: str) -> str:
    """The line-syntax family of an editor executable (path or name)."""
    name = _base(exe)
    # vim.basic, vim.tiny, nvim-qt, emacs-29.1, emacsclient.emacs: drop the decoration.
    stem = re.split(r"[.\-]\d|\.(?:basic|tiny|gtk3?|nox|lucid|athena|emacs)$", name)[0]
    for candidate in (name, stem):
        if candidate in _PLUS_LINE:
            return "plus-line"
        if candidate in _COLON:
            return "colon"
        if candidate in _GOTO:
            return "goto"
        if candidate in _JETBRAINS:
            return "jetbrains"
        if candidate in ("kate", "kwrite"):
            return "kate"
        if candidate == "mate":
            return "mate"
    return "plain"


def line_args(fam: str, path: str, line: int) -> list[str]:
    """The arguments that open `path` at `line` for an editor of family `fam`."""
    line = max(1, int(line))
    if fam == "plus-line":
        return [f"+{line}", path]
    if fam == "colon":
        return [f"{path}:{line}"]
    if fam == "goto":
        return ["--goto", f"{path}:{line}"]
    if fam in ("jetbrains", "kate"):
        return ["--line", str(line), path]
    if fam == "mate":
        return ["-l", str(line), path]
    # Unknown editor: a `+LINE` could be opened as a file named "+12", so give
    # only the file. Set $VISUAL to a known editor to land on the line.
    return [path]


Which = Callable[[str], "str | None"]


def _which_in(env: Mapping[str, str]) -> Which:
    return lambda name: shutil.which(name, path=env.get("PATH"))


def configured(
    env: Mapping[str, str] | None = None, which: Which | None = None
) -> tuple[list[str], str]:
    """The editor words ($VISUAL, else $EDITOR, else the first default on PATH) and their source."""
    env = os.environ if env is None else env
    which = which or _which_in(env)
    for var in ("VISUAL", "EDITOR"):
        value = env.get(var, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError as e:
                raise EditorNotFound(f"${var} is not a valid command line ({e})") from e
            if words:
                return words, var
    for name in DEFAULT_EDITORS:
        if which(name):
            return [name], "default"
    raise EditorNotFound(
        "no editor: set $VISUAL or $EDITOR (none of " + ", ".join(DEFAULT_EDITORS) + " is on PATH)"
    )


def command_for(
    path: str,
    line: int,
    env: Mapping[str, str] | None = None,
    which: Which | None = None,
) -> EditorCommand:
    """Resolve the editor and build its argv for `path` at `line`.

    Raises EditorNotFound when the editor's executable is not on PATH (or not
    executable), so the picker can say so and stay open instead of exiting.
    """
    env = os.environ if env is None else env
    which = which or _which_in(env)
    words, source = configured(env, which)
    exe = words[0]
    found = which(exe)
    if not found:
        where = f"${source}" if source != "default" else "the default editor"
        raise EditorNotFound(f"cannot start editor {exe!r} ({where}): not found or not executable")
    fam = family(exe)
    argv = [*words, *line_args(fam, path, line)]
    return EditorCommand(argv=argv, executable=found, source=source, family=fam)


# vim's family reads a quickfix file (`-q`): every pick in :copen, :cnext to go on.
_QUICKFIX = {"vi", "vim", "nvim", "gvim", "mvim", "view", "vimx"}
# These open each `+LINE FILE` pair at its own line.
_PLUS_EACH = {"emacs", "emacsclient", "xemacs", "nano", "pico", "rnano", "micro", "kak", "kakoune"}


def multi_style(exe: str) -> str:
    """How an editor opens several picks: quickfix | each (line syntax per file) | first."""
    name = _base(exe)
    stem = re.split(r"[.\-]\d|\.(?:basic|tiny|gtk3?|nox|lucid|athena|emacs)$", name)[0]
    if name in _QUICKFIX or stem in _QUICKFIX:
        return "quickfix"
    if name in _PLUS_EACH or stem in _PLUS_EACH or family(exe) in ("colon", "goto"):
        return "each"
    return "first"


def command_for_many(
    picks: Sequence[tuple[str, int, str]],
    env: Mapping[str, str] | None = None,
    which: Which | None = None,
    tmpdir: str | None = None,
) -> EditorCommand:
    """The argv that opens several picks, `(path, line, vimgrep line)` each, in one editor.

    vim/nvim: `-q FILE` on a quickfix file of the vimgrep lines (the first pick
    opens, :cnext goes on); emacs, nano, micro, kak: `+LINE FILE` per pick; helix,
    sublime, zed: `FILE:LINE` each; VS Code and kin: `--goto FILE:LINE FILE:LINE`.
    Any other editor opens the first pick only (docs/EDITORS.md)."""
    if len(picks) == 1:
        path, line, _ = picks[0]
        return command_for(path, line, env, which)
    first = command_for(picks[0][0], picks[0][1], env, which)  # (the checks, the words)
    words = first.argv[: len(first.argv) - len(line_args(first.family, picks[0][0], picks[0][1]))]
    style = multi_style(words[0])
    if style == "quickfix":
        import tempfile

        fd, qf = tempfile.mkstemp(prefix="rq-picks-", suffix=".qf", dir=tmpdir)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(v + "\n" for _, _, v in picks))
        return EditorCommand([*words, "-q", qf], first.executable, first.source, first.family, qf)
    if style == "each":
        args: list[str] = []
        for path, line, _ in picks:
            more = line_args(first.family, path, line)
            args += more[1:] if first.family == "goto" and args else more  # one --goto
        return EditorCommand([*words, *args], first.executable, first.source, first.family)
    return first


def launch(cmd: EditorCommand | Sequence[str], cwd: str | None = None) -> int:
    """Run the editor in the foreground on the inherited terminal; its exit code.

    Raises EditorNotFound when the process cannot be started at all.
    """
    if isinstance(cmd, EditorCommand):
        argv = [cmd.executable, *cmd.argv[1:]]
    else:
        argv = list(cmd)
    try:
        return subprocess.run(argv, cwd=cwd, check=False).returncode
    except OSError as e:
        raise EditorNotFound(f"cannot start editor {argv[0]!r}: {e.strerror or e}") from e
    finally:
        if isinstance(cmd, EditorCommand) and cmd.quickfix:
            try:
                os.unlink(cmd.quickfix)
            except OSError:
                pass
