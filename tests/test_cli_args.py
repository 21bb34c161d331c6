"""The one-shot fast path of the argument parser reads exactly what argparse would."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache

import pytest

from rq_engine.cli import args
from rq_engine.cli.parser import build_parser
from rq_engine.core.errors import UsageError
from tests.conftest import ROOT

# `parse` in a fresh interpreter where argparse cannot be imported: a namespace back
# means the fast path read the arguments; None, that it had to ask argparse.
FAST_PROBE = """
import json, sys
sys.modules["argparse"] = None
from rq_engine.cli.args import parse
out = []
for argv in json.loads(sys.argv[1]):
    try:
        out.append(vars(parse(argv)))
    except ImportError:
        out.append(None)
print(json.dumps(out))
"""


@cache
def _fast_paths(argvs: tuple[tuple[str, ...], ...]) -> list[dict[str, object] | None]:
    p = subprocess.run(
        [sys.executable, "-c", FAST_PROBE, json.dumps(argvs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    out: list[dict[str, object] | None] = json.loads(p.stdout)
    return out


def fast_path(argv: list[str], batch: list[list[str]]) -> dict[str, object] | None:
    """What the fast path alone makes of `argv` (None: argparse was needed). The whole
    `batch` is read by one process, once."""
    key = tuple(tuple(a) for a in batch)
    return _fast_paths(key)[batch.index(argv)]


def argparse_reads(argv: list[str]) -> dict[str, object]:
    full: dict[str, object] = json.loads(json.dumps(vars(build_parser().parse_args(argv))))
    return full


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
    ["--text", "cart add item"],
    ["--text", "x y", "--ranker", "text-ranker/bm25-v1", "--json", "--explain"],
    ["--text=a b", "--limit", "3", "--no-wait"],
    ["-q", "--text", "words"],
    ["--index"],
    ["--index", "/tmp/repo"],
    ["--index=/tmp/repo", "--json"],
    ["--index", "--ndjson"],
    ["-C", "/tmp", "--index", "src", "--path", "a", "--path=b/c"],
    ["--path", "a", "--index"],
    ["--index", ""],
]


@pytest.mark.parametrize("argv", SAME, ids=" ".join)
def test_the_fast_path_gives_argparse_s_namespace(argv: list[str]) -> None:
    fast = fast_path(argv, SAME)
    assert fast is not None, "the fast path handed a one-shot query to argparse"
    full = argparse_reads(argv)
    # parse() derives wait_ms from --wait/--no-wait on either path
    assert set(fast) - set(full) == {"wait_ms"}
    assert {k: v for k, v in fast.items() if k in full} == full


OTHERS = [
    ["--json", "Foo"],  # no -q: the picker or a pipe decides
    ["-q", "--", "-foo"],
    ["-q", "x", "y"],
    ["-q", "--lim", "3", "x"],  # an abbreviation argparse accepts
    ["-q", "--limit", "three", "x"],
    ["-q", "--json", "--json", "x"],
    ["--text", "-x"],
    ["-q", "-Cdir", "x"],
    ["-q", "--limit"],
    ["--index", "-"],  # argparse takes `-` (and `-1`) for the directory
    ["--index", "-1"],
    ["--index", "--index", "x"],
    ["--ind", "x"],
    ["--index", "--path"],
    ["--index", "--", "x"],
    ["--drop", "x"],
]


@pytest.mark.parametrize("argv", OTHERS, ids=" ".join)
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    assert fast_path(argv, OTHERS) is None


def test_checks_apply_to_both_paths() -> None:
    for argv in (
        ["-q", "--limit", "0", "x"],
        ["-q", "--json", "--ndjson", "x"],
        ["--index", "d", "x"],
        ["--index", "--limit", "3"],
    ):
        with pytest.raises(UsageError):
            args.parse(argv)
    assert args.parse(["-q", "--wait", "1.5s", "x"]).wait_ms == 1500
    assert args.parse(["-q", "--no-wait", "x"]).wait_ms == 0


def test_an_explicit_index_does_not_import_argparse() -> None:
    code = (
        "import sys; from rq_engine.cli.args import parse; parse(['--index', '.']);"
        "print('argparse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_a_one_shot_query_does_not_import_argparse() -> None:
    code = (
        "import sys; from rq_engine.cli.args import parse; parse(['-q', '--json', 'Foo']);"
        "print('argparse' in sys.modules, 'gettext' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
