"""`rq --man`: the roff manual written from the parser renders, and names every flag, variable and exit code."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.cli.parser import ENVIRONMENT
from rq_engine.core.errors import ExitCode
from tests.conftest import ROOT, Run

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b")
SECTIONS = ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS")


def rendered(page: Path) -> str | None:
    """The page as a reader sees it: `man -l`, else groff; None when neither is here."""
    env = {**os.environ, "LC_ALL": "C", "MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"}
    if shutil.which("man"):
        argv = ["man", "-l", str(page)]
    elif shutil.which("groff"):
        argv = ["groff", "-man", "-Tascii", "-P-c", "-P-b", "-P-u", str(page)]
    else:
        return None
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def help_flags(rq: Callable[..., Run]) -> set[str]:
    text = re.sub(r"-\n\s+", "-", rq("--help").out)  # a flag the help wrapped after its hyphen
    return set(FLAG.findall(text.split("environment:", 1)[0]))


@pytest.fixture
def page(rq: Callable[..., Run], tmp_path: Path) -> tuple[str, Path]:
    r = rq("--man")
    assert (r.code, r.err) == (0, "")
    path = tmp_path / "rq.1"
    path.write_text(r.out, encoding="utf-8")
    return r.out, path


def test_the_page_is_roff_with_the_usual_sections(page: tuple[str, Path]) -> None:
    source, _ = page
    assert source.startswith(".TH RQ 1 ")
    assert re.findall(r"^\.SH (.+)$", source, re.M)[: len(SECTIONS)] == list(SECTIONS)
    # every line is a request, or text that roff cannot take for one
    assert all(not ln.startswith("'") for ln in source.splitlines())


def test_it_renders_and_names_every_flag_of_help(
    page: tuple[str, Path], rq: Callable[..., Run]
) -> None:
    source, path = page
    text = rendered(path)
    if text is None:  # neither man nor groff: the flags as roff writes them
        text = source.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
    for section in SECTIONS:
        assert re.search(rf"^{section}$", text, re.M), section
    options = text.split("OPTIONS", 1)[1].split("ENVIRONMENT", 1)[0]
    flags = help_flags(rq)
    assert {"--shell", "--man", "--bind", "--anchor", "--text"} <= flags
    missing = {f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}\b", options)}
    assert missing == set()
    assert "--warm" not in text  # the internal flag --help hides


@pytest.mark.skipif(not shutil.which("groff"), reason="groff is not installed")
def test_groff_reads_it_without_a_warning(page: tuple[str, Path]) -> None:
    _, path = page
    r = subprocess.run(
        ["groff", "-man", "-Tascii", "-ww", "-z", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (0, "")


def test_environment_is_the_list_help_prints(
    page: tuple[str, Path], rq: Callable[..., Run]
) -> None:
    source, _ = page
    env = source.split(".SH ENVIRONMENT", 1)[1].split(".SH ", 1)[0]
    in_page = set(re.findall(r"\\fB([A-Z][A-Z_]+)\\fR", env))
    helped = rq("--help").out.split("environment:", 1)[1]
    in_help = set(re.findall(r"^  ([A-Z][A-Z_]+)\b", helped, re.M)) | {"EDITOR"}
    assert in_page == in_help == {n.strip() for row, _ in ENVIRONMENT for n in row.split(",")}
    assert {"RQ_BIND", "RQ_TMUX_POPUP"} <= in_page


def test_exit_status_is_docs_cli_md_s_table(page: tuple[str, Path]) -> None:
    source, _ = page
    status = source.split(".SH EXIT STATUS", 1)[1].split(".SH ", 1)[0]
    in_page = [int(c) for c in re.findall(r"^\\fB(\d+)\\fR$", status, re.M)]
    table = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## Exit codes", 1)[1]
    documented = [int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)]
    assert in_page == documented
    assert set(in_page) == set(ExitCode.all().values()) - {ExitCode.DATAERR}  # (reserved)


def test_man_takes_no_query(rq: Callable[..., Run]) -> None:
    r = rq("--man", "Foo")
    assert (r.code, r.out, r.err) == (64, "", "rq: --man takes no query\n")
