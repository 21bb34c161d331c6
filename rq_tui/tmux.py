"""`rq --tmux [QUERY]`: the picker in a tmux popup over the calling pane; the choice opens here.

The popup runs `rq --print` (the picker draws on the popup's terminal, the
choice goes to a file); this process, still in the calling pane, then starts
the editor on the pane's terminal or prints `path:line` (--print). Stdlib
only: the calling pane never pays for the ~200 ms textual import.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from rq_engine.core import editor
from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_tui import theming

POPUP_WIDTH = "80%"
POPUP_HEIGHT = "70%"
# RQ_TMUX_POPUP="WIDTH,HEIGHT" (tmux's forms: 90%, 120) overrides them.
_SIZE = re.compile(r"^\s*(\d{1,4}%?)\s*,\s*(\d{1,4}%?)\s*$")


def popup_size(env: dict[str, str]) -> tuple[str, str]:
    value = env.get("RQ_TMUX_POPUP", "").strip()
    if not value:
        return POPUP_WIDTH, POPUP_HEIGHT
    m = _SIZE.match(value)
    if m is None:
        raise UsageError(f"RQ_TMUX_POPUP={value!r}: write WIDTH,HEIGHT (e.g. 90%,80% or 120,40)")
    return m.group(1), m.group(2)


# The popup's shell starts from the tmux server's environment, not ours: hand
# over what decides which index, cache, config and theme the picker uses.
PASS_PREFIXES = ("RQ_", "XDG_")
PASS_NAMES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "NO_COLOR", "COLORTERM", "HOME")


def popup_env(env: dict[str, str]) -> list[str]:
    keep = sorted(k for k in env if k.startswith(PASS_PREFIXES) or k in PASS_NAMES)
    return [f"{k}={env[k]}" for k in keep]


def picker_command(ns: argparse.Namespace, theme: str, out: Path, status: Path) -> str:
    """The popup's shell command: the picker with --print, its choice and exit code to files.

    It exits 0 on a choice and on esc (130), so `-EE` closes the popup then,
    and keeps it open on a real failure so its one-line error stays readable.
    """
    # For the editor the popup prints vimgrep records, NUL-ended: several picks, each
    # with what vim's quickfix needs; for --print the user's own print flags.
    if ns.print_only or ns.vimgrep or ns.print0:
        form = ["--print"] + ["--vimgrep"] * bool(ns.vimgrep) + ["--print0"] * bool(ns.print0)
    else:
        form = ["--print", "--vimgrep", "--print0"]
    argv = [sys.executable, "-m", "rq_engine", *form, "--theme", theme]
    if ns.all_repos:
        argv.append("--all-repos")
    if ns.limit:
        argv += ["--limit", str(ns.limit)]
    if ns.anchor is not None:  # (FILE is relative to cwd, the popup's directory too)
        argv += ["--anchor", ns.anchor]
    if ns.query:
        argv += ["--", ns.query]
    o, s = shlex.quote(str(out)), shlex.quote(str(status))
    return (
        f"{shlex.join(argv)} > {o}; rc=$?; echo $rc > {s}; "
        f'if [ $rc -eq 0 ] || [ $rc -eq 130 ]; then exit 0; else exit "$rc"; fi'
    )


_VIMGREP = re.compile(r"^(.+?):(\d+):(\d+):", re.DOTALL)


def parse_choice(text: str, cwd: Path) -> list[tuple[str, int, str]]:
    """The popup's `--vimgrep --print0` records -> [(absolute path, line, record)]."""
    picks = []
    for rec in text.split("\0"):
        if not rec.strip():
            continue
        m = _VIMGREP.match(rec)
        if m is None:
            raise RqError(f"unexpected picker output {rec.strip()!r}", ExitCode.IOERR)
        path = m.group(1)
        absolute = path if os.path.isabs(path) else str((cwd / path).resolve())
        picks.append((absolute, int(m.group(2)), rec))
    return picks


def run(ns: argparse.Namespace) -> int:
    env = dict(os.environ)
    if not env.get("TMUX"):
        raise UsageError("--tmux needs a tmux session")
    theme = theming.choose(ns.theme, env)
    width, height = popup_size(env)
    if not (ns.print_only or ns.vimgrep or ns.print0):
        try:  # say so now, not after the user has picked something
            editor.command_for("FILE", 1, env)
        except editor.EditorNotFound as e:
            raise RqError(str(e), ExitCode.IOERR) from e
    cwd = Path.cwd()
    if ns.anchor is not None:  # a bad one: one line and 64 here, not in the popup
        from rq_engine.search.anchor import Anchor

        Anchor.parse(ns.anchor, str(cwd))
    with tempfile.TemporaryDirectory(prefix="rq-tmux-") as tmp:
        out, status = Path(tmp) / "choice", Path(tmp) / "status"
        cmd = ["tmux", "display-popup", "-EE", "-d", str(cwd), "-w", width]
        cmd += ["-h", height, "-T", " rq "]
        for assignment in popup_env(env):
            cmd += ["-e", assignment]
        if env.get("TMUX_PANE"):
            cmd += ["-t", env["TMUX_PANE"]]
        cmd.append(picker_command(ns, theme, out, status))
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as e:
            raise RqError(f"cannot run tmux: {e.strerror or e}", ExitCode.IOERR) from e
        if r.returncode != 0 and not status.exists():
            why = (r.stderr or r.stdout).strip() or f"exit {r.returncode}"
            raise RqError(f"tmux display-popup failed: {why}", ExitCode.IOERR)
        try:
            code = int(status.read_text().strip())
        except (OSError, ValueError):
            code = int(ExitCode.INTERRUPTED)  # the popup was closed from outside
        choice = out.read_text(errors="surrogateescape") if out.exists() else ""
    if code != 0:
        return code
    if not choice.strip("\0\n "):
        return int(ExitCode.INTERRUPTED)
    if ns.print_only or ns.vimgrep or ns.print0:
        sys.stdout.write(choice)  # (as the picker printed it: one record a pick)
        return int(ExitCode.OK)
    picks = parse_choice(choice, cwd)
    try:
        return editor.launch(editor.command_for_many(picks, env), cwd=str(cwd))
    except editor.EditorNotFound as e:
        raise RqError(str(e), ExitCode.IOERR) from e
