"""Which flags go with which mode (cli/args.py's TAKES): a flag the mode does not read
is a usage error naming both, one line and exit 64 — never a flag silently ignored —
and the combinations the docs promise still run."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.cli import args
from rq_engine.core.errors import UsageError
from tests.conftest import Repo, Run, rq_bin
from tests.tui.ptyproc import PtyProcess

# How each mode is asked for, and how each flag is given, for the matrix below.
MODE_ARGV = {
    "query": ["Foo"],
    "oneshot": ["-q", "Foo"],
    "picker": ["--print", "Foo"],
    "open": ["-o", "Foo"],
    "show": ["--show", "Foo"],
    "web": ["--web", "Foo"],
    "text": ["--text", "foo bar"],
    "export_graph": ["--export-graph", "g.json"],
    "graph": ["--graph", "g.json"],
    "index": ["--index", "."],
    "drop": ["--drop", "."],
    "status": ["--status"],
    "check": ["--check"],
    "usage": ["--usage"],
    "mcp": ["--mcp"],
    "warm": ["--warm", "."],
    "version": ["--version"],
    "shell": ["--shell", "bash"],
    "man": ["--man"],
}
FLAG_ARGV = {
    "query": ["Bar"],
    "oneshot": ["-q"],
    "json": ["--json"],
    "ndjson": ["--ndjson"],
    "explain": ["--explain"],
    "limit": ["--limit", "3"],
    "all_repos": ["--all-repos"],
    "anchor": ["--anchor", "a.py:1"],
    "cwd": ["-C", "."],
    "wait": ["--wait", "2s"],
    "no_wait": ["--no-wait"],
    "path": ["--path", "src"],
    "ranker": ["--ranker", "text-ranker/bm25-v1"],
    "graph": ["--graph", "g.json"],
    "print_only": ["--print"],
    "vimgrep": ["--vimgrep"],
    "print0": ["--print0"],
    "tmux": ["--tmux"],
    "theme": ["--theme", "dark"],
    "bind": ["--bind", "ctrl-x:accept"],
}


def test_every_mode_and_flag_is_in_the_table() -> None:
    commands = {k for k in args.DEFAULTS if k not in FLAG_ARGV}
    assert set(args.TAKES) == set(MODE_ARGV) == commands | {"query", "oneshot", "picker", "graph"}
    for mode, argv in MODE_ARGV.items():
        assert args.mode_of(args.parse(argv)) == mode, argv


@pytest.mark.parametrize("mode", list(MODE_ARGV))
def test_each_flag_is_honoured_or_refused_naming_both(mode: str) -> None:
    """The whole table, mode by flag: taken (the parse goes through), or one error
    that names the flag and the mode's own flag."""
    own = MODE_ARGV[mode][0] if mode != "query" else None
    for name, given in FLAG_ARGV.items():
        if name == mode or (name == "query" and "query" in args.TAKES[mode]):
            continue  # (the mode's own flag; a second query is argparse's error)
        argv = [*MODE_ARGV[mode], *given]
        takes = name in args.TAKES[mode] or name in ("cwd", "bind")
        # (the picker's flags turn a bare query into a picker, -q's into a one-shot one)
        if mode == "query" and name in (*args.ONE_SHOT, "print_only", "theme", "tmux"):
            takes = True
        try:
            args.parse(argv)
        except UsageError as e:
            assert not takes, (argv, e.message)
            said = "a query" if name == "query" else args._flag(name)
            if name != "query":
                assert said in e.message, (argv, e.message)
            if own is not None:
                assert own in e.message or args._flag(mode) in e.message, (argv, e.message)
            continue
        assert takes, f"{' '.join(argv)}: accepted, and {mode} does not read {name}"


# (argv, the two things the one line must name) — each ran before, its flag ignored
IGNORED_BEFORE = [
    (["--index", ".", "alpha"], ("--index", "takes no query")),
    (["--index", "--limit", "3"], ("--index", "--limit")),
    (["--index", "--explain"], ("--index", "--explain")),
    (["--index", "--wait", "2s"], ("--index", "--wait")),
    (["--drop", "--limit", "3"], ("--drop", "--limit")),
    (["--status", "--explain"], ("--status", "--explain")),
    (["--status", "--limit", "3"], ("--status", "--limit")),
    (["--status", "--all-repos"], ("--status", "--all-repos")),
    (["--status", "-q"], ("--status", "-q")),
    (["--status", "--graph", "g.json"], ("--graph", "--status")),
    (["--check", "--limit", "2"], ("--check", "--limit")),
    (["--check", "--no-wait"], ("--check", "--no-wait")),
    (["--usage", "--explain"], ("--usage", "--explain")),
    (["--usage", "--print0"], ("--usage", "--print0")),
    (["--mcp", "--json"], ("--mcp", "--json")),
    (["--mcp", "--limit", "3"], ("--mcp", "--limit")),
    (["--version", "--status"], ("--version", "--status")),
    (["--text", "foo", "--vimgrep"], ("--text", "--vimgrep")),
    (["--graph", "g.json", "--text", "foo", "--all-repos"], ("--graph", "--all-repos")),
    (["--export-graph", "g.json", "--json"], ("--export-graph", "--json")),
    (["--json", "--print", "alpha"], ("--json", "--print")),
    (["-q", "--theme", "dark", "alpha"], ("-q", "--theme")),
    (["-q", "--tmux", "alpha"], ("-q", "--tmux")),
]


@pytest.mark.parametrize(
    ("argv", "names"), IGNORED_BEFORE, ids=[" ".join(a) for a, _ in IGNORED_BEFORE]
)
def test_a_flag_the_mode_does_not_read_is_a_usage_error(
    argv: list[str], names: tuple[str, str], make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"a.py": "def alpha():\n    pass\n"})
    r = rq(*argv, cwd=repo.root)
    assert (r.code, r.out) == (64, ""), (r.code, r.out, r.err)
    assert r.err.startswith("rq: ") and r.err.count("\n") == 1, r.err
    assert all(n in r.err for n in names), r.err
    assert "Traceback" not in r.err


# Documented and tested as meaningful: they run (a miss or a warming answer is fine).
STILL_RUN = [
    ["--index", ".", "--json"],
    ["--index", ".", "--path", "pkg", "--ndjson"],
    ["--status", "--json"],
    ["--status", "--ndjson"],
    ["--check", "--json"],
    ["--usage", "--json"],
    ["-q", "--all-repos", "--explain", "--limit", "2", "alpha"],
    ["--web", "--all-repos", "--no-wait", "alpha"],
    ["--text", "alpha", "-q", "--explain", "--limit", "3", "--wait", "5s"],
    ["-q", "--bind", "ctrl-x:accept", "alpha"],
    ["-C", ".", "--status"],
    ["--drop", ".", "--json"],
]


@pytest.mark.parametrize("argv", STILL_RUN, ids=" ".join)
def test_the_documented_combinations_run(
    argv: list[str], make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"pkg/a.py": "def alpha():\n    pass\n"})
    r = rq(*argv, cwd=repo.root)
    assert r.code in (0, 1, 2), (r.code, r.err)
    assert "Traceback" not in r.err


@pytest.mark.parametrize("flags", [["--explain"], ["--wait", "5s"], ["--no-wait"]], ids=" ".join)
def test_what_only_a_one_shot_answer_reads_answers_once_on_a_terminal(
    flags: list[str], make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """`rq --explain alpha` at a terminal prints the ranked answer, as `rq --json alpha`
    does: the picker would read neither."""
    repo = make_repo({"a.py": "def alpha():\n    pass\n"})
    assert rq("--index", cwd=repo.root).code == 0
    p = PtyProcess([*rq_bin(), *flags, "alpha"], cwd=repo.root, env=dict(os.environ))
    code = p.wait(timeout=30)
    assert "a.py:1" in p.text and "F1 help" not in p.text, p.text
    assert code == 0, p.text


def fake_tmux(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A `tmux` on PATH that records the popup's command and answers nothing: rq then
    sees the popup closed from outside (130)."""
    bin_dir = tmp_path / "fake-tmux"
    bin_dir.mkdir()
    log = tmp_path / "tmux.argv"
    script = bin_dir / "tmux"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\nexit 0\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "TMUX": f"{tmp_path}/s,1,0"}
    return env | {"EDITOR": "true"}, log


def test_tmux_hands_the_anchor_to_the_popup(
    tmp_path: Path, make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"a.py": "def alpha():\n    pass\n"})
    env, log = fake_tmux(tmp_path)
    r = rq("--tmux", "--anchor", "a.py:2", "alpha", cwd=repo.root, env=env)
    assert r.code == 130, r.err
    assert "--anchor a.py:2" in log.read_text().splitlines()[-1]
    # a bad one is said here, before any popup
    log.unlink()
    r = rq("--tmux", "--anchor", "nope.py:2", "alpha", cwd=repo.root, env=env)
    assert (r.code, r.err) == (64, "rq: --anchor nope.py:2: no such file\n")
    assert not log.exists()
