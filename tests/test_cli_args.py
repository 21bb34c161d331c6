"""The one-shot fast path of the argument parser reads exactly what argparse would."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rq_engine.cli import args
from rq_engine.cli.parser import build_parser
from rq_engine.core.errors import UsageError

SAME = [
    ["-q", "Foo"],
    ["Foo", "-q"],
    ["-q", "--json", "Foo::Bar#baz"],
    ["-q", "--ndjson", "--explain", "--limit", "3", "x"],
    ["-q", "--limit=7", "x"],
    ["-q", "--all-repos", "--no-wait", "x"],
    ["-q", "--wait", "2s", "x"],
    ["-q", "--wait=50ms", "x"],
    ["-q", "-C", "/tmp", "x"],
    ["-q", "--vimgrep", "x"],
    ["-q", "--print0", "--vimgrep", "x"],
    ["-q", "a=b"],
    ["-q", "-"],
    ["-q"],
]


@pytest.mark.parametrize("argv", SAME, ids=" ".join)
def test_the_fast_path_gives_argparse_s_namespace(argv: list[str]) -> None:
    fast = args._fast(argv)  # (the seam under test: None means "ask argparse")
    assert fast is not None
    full = vars(build_parser().parse_args(argv))
    assert vars(fast) == full


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "Foo"],  # no -q: the picker or a pipe decides
        ["-q", "--", "-foo"],
        ["-q", "x", "y"],
        ["-q", "--lim", "3", "x"],  # an abbreviation argparse accepts
        ["-q", "--limit", "three", "x"],
        ["-q", "--json", "--json", "x"],
        ["-q", "--text", "words"],
        ["-q", "-Cdir", "x"],
        ["-q", "--limit"],
    ],
    ids=" ".join,
)
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    assert args._fast(argv) is None


def test_checks_apply_to_both_paths() -> None:
    for argv in (["-q", "--limit", "0", "x"], ["-q", "--json", "--ndjson", "x"]):
        with pytest.raises(UsageError):
            args.parse(argv)
    assert args.parse(["-q", "--wait", "1.5s", "x"]).wait_ms == 1500
    assert args.parse(["-q", "--no-wait", "x"]).wait_ms == 0


def test_a_one_shot_query_does_not_import_argparse() -> None:
    code = (
        "import sys; from rq_engine.cli.args import parse; parse(['-q', '--json', 'Foo']);"
        "print('argparse' in sys.modules, 'gettext' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
