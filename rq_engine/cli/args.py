"""Argument parsing. Everything is a flag: the positional argument is always a query.

argparse's own errors exit 2, which rq reserves for "still warming"; this parser
raises UsageError (exit 64, one line on stderr) instead.
"""

from __future__ import annotations

import argparse
import os

from rq_engine.core.errors import UsageError

TYPE_CHECKING = False  # `typing` costs ~2 ms to import on the hot path
if TYPE_CHECKING:
    from typing import NoReturn

RANKERS = ("text-ranker/full-scan-v1", "text-ranker/bm25-v1")
DEFAULT_RANKER = "text-ranker/full-scan-v1"


class _Formatter(argparse.HelpFormatter):
    """HelpFormatter given its width up front.

    argparse builds a formatter inside every add_argument() call, and one built
    without a width imports shutil (+ zlib, bz2, lzma: ~3 ms) for the terminal size.
    """

    def __init__(self, prog: str) -> None:
        try:
            width = os.get_terminal_size(2).columns - 2
        except OSError:
            width = 78
        super().__init__(prog, width=max(width, 40))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rq",
        formatter_class=_Formatter,
        description="Find the one definition you most likely want, as path:line.",
        epilog="Exit codes: 0 results, 1 no match, 2 index still warming, 64 usage, 74 I/O or store, 130 interrupted.",
    )
    p.add_argument(
        "query", nargs="?", help="what to find: a name, a fragment, a typo, Foo::Bar#baz"
    )
    q = p.add_argument_group("one-shot search")
    q.add_argument(
        "-q", dest="oneshot", action="store_true", help="print results and exit (no picker)"
    )
    q.add_argument("--json", action="store_true", help="one JSON array")
    q.add_argument("--ndjson", action="store_true", help="one JSON object a line")
    q.add_argument("--explain", action="store_true", help="show each result's score breakdown")
    q.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N results (default 20)"
    )
    q.add_argument("--all-repos", action="store_true", help="search every indexed repository")
    q.add_argument("-C", dest="cwd", metavar="DIR", default=None, help="run as if started in DIR")
    q.add_argument(
        "--wait",
        metavar="DUR",
        default=None,
        help="while the index warms, wait at most DUR for the answer (50ms, 2s, 1m, bare ms)",
    )
    q.add_argument(
        "--no-wait",
        action="store_true",
        help="answer from the index as it is now; a miss on a warming index exits 2",
    )
    i = p.add_argument_group("index")
    i.add_argument("--index", nargs="?", const=".", metavar="DIR", help="index DIR (default .)")
    i.add_argument(
        "--path",
        action="append",
        metavar="SUB",
        default=None,
        help="with --index: index SUB first (repeatable); the rest warms through use",
    )
    i.add_argument("--status", action="store_true", help="repositories, coverage, counts, sizes")
    i.add_argument("--usage", action="store_true", help="how much rq was used, day by day")
    # The detached warmer a search hands leftover indexing to (internal).
    i.add_argument("--warm", metavar="ROOT", default=None, help=argparse.SUPPRESS)
    i.add_argument("--drop", nargs="?", const=".", metavar="DIR", help="forget DIR's repository")
    t = p.add_argument_group("text ranking over the code graph")
    t.add_argument("--text", metavar="WORDS", help="multi-word text query")
    t.add_argument(
        "--ranker", choices=RANKERS, default=None, help=f"ranker profile (default {DEFAULT_RANKER})"
    )
    t.add_argument("--graph", metavar="FILE", help="read this graph.json instead of the live index")
    t.add_argument("--export-graph", metavar="FILE", help="write the repository's graph.json")
    u = p.add_argument_group("picker")
    u.add_argument(
        "--print",
        dest="print_only",
        action="store_true",
        help="print the choice instead of opening it",
    )
    u.add_argument("--tmux", action="store_true", help="open the picker in a tmux popup")
    u.add_argument("--theme", metavar="NAME", help="picker theme (see themes/)")
    p.add_argument("--version", action="store_true", help="print the version")
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    ns = build_parser().parse_args(argv)
    if ns.json and ns.ndjson:
        raise UsageError("--json and --ndjson are exclusive")
    if ns.limit is not None and ns.limit < 1:
        raise UsageError("--limit takes a whole number of at least 1")
    modes = [
        f
        for f in ("index", "status", "drop", "text", "export_graph", "usage", "warm")
        if getattr(ns, f)
    ]
    if len(modes) > 1:
        raise UsageError(
            f"--{modes[0].replace('_', '-')} and --{modes[1].replace('_', '-')} are exclusive"
        )
    if ns.ranker and not ns.text:
        raise UsageError("--ranker goes with --text")
    if ns.path and ns.index is None:
        raise UsageError("--path goes with --index")
    if ns.no_wait and ns.wait is not None:
        raise UsageError("--wait and --no-wait are exclusive")
    ns.wait_ms = 0 if ns.no_wait else (parse_duration(ns.wait) if ns.wait is not None else None)
    return ns


_UNITS = {"ms": 1, "s": 1000, "m": 60_000}


def parse_duration(text: str) -> int:
    """`50ms`, `2s`, `1m`, `1.5s` or bare milliseconds -> whole milliseconds (UsageError if not)."""
    t = text.strip().lower()
    for unit in ("ms", "s", "m"):
        if t.endswith(unit):
            num, scale = t[: -len(unit)], _UNITS[unit]
            break
    else:
        num, scale = t, 1
    try:
        value = float(num)
    except ValueError:
        raise UsageError(f"--wait {text}: not a duration (50ms, 2s, 1m or milliseconds)") from None
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"--wait {text}: a duration is a finite number, 0 or more")
    return int(round(value * scale))
