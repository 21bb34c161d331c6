"""`rq --tmux [QUERY]`: the picker in a tmux popup over the calling pane; the choice opens here.

The popup runs `rq --print` (the picker draws on the popup's terminal, the
choice goes to a file); this process, still in the calling pane, then starts
the editor on the pane's terminal or prints `path:line` (--print). Stdlib
only: the calling pane never pays for the ~200 ms textual import.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_tui import editor, theming

POPUP_WIDTH = "80%"
POPUP_HEIGHT = "70%"
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
    argv = [sys.executable, "-m", "rq_engine", "--print", "--theme", theme]
    if ns.all_repos:
        argv.append("--all-repos")
    if ns.limit:
        argv += ["--limit", str(ns.limit)]
    if ns.query:
        argv += ["--", ns.query]
    o, s = shlex.quote(str(out)), shlex.quote(str(status))
    return (
        f"{shlex.join(argv)} > {o}; rc=$?; echo $rc > {s}; "
        f'if [ $rc -eq 0 ] || [ $rc -eq 130 ]; then exit 0; else exit "$rc"; fi'
    )


def parse_choice(text: str, cwd: Path) -> tuple[str, int]:
    """`path:line` as --print wrote it -> (absolute path, line)."""
    path, _, line = text.strip().rpartition(":")
    if not path or not line.isdigit():
        raise RqError(f"unexpected picker output {text.strip()!r}", ExitCode.IOERR)
    return str((cwd / path).resolve()) if not os.path.isabs(path) else path, int(line)


def run(ns: argparse.Namespace) -> int:
    env = dict(os.environ)
    if not env.get("TMUX"):
        raise UsageError("--tmux needs a tmux session")
    theme = theming.choose(ns.theme, env)
    if not ns.print_only:
        try:  # say so now, not after the user has picked something
            editor.command_for("FILE", 1, env)
        except editor.EditorNotFound as e:
            raise RqError(str(e), ExitCode.IOERR) from e
    cwd = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="rq-tmux-") as tmp:
        out, status = Path(tmp) / "choice", Path(tmp) / "status"
        cmd = ["tmux", "display-popup", "-EE", "-d", str(cwd), "-w", POPUP_WIDTH]
        cmd += ["-h", POPUP_HEIGHT, "-T", " rq "]
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
        choice = out.read_text() if out.exists() else ""
    if code != 0:
        return code
    if not choice.strip():
        return int(ExitCode.INTERRUPTED)
    if ns.print_only:
        sys.stdout.write(choice if choice.endswith("\n") else choice + "\n")
        return int(ExitCode.OK)
    path, line = parse_choice(choice, cwd)
    try:
        return editor.launch(editor.command_for(path, line, env), cwd=str(cwd))
    except editor.EditorNotFound as e:
        raise RqError(str(e), ExitCode.IOERR) from e
