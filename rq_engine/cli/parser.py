"""The full argparse parser of `rq` (help, every flag, its error messages).

Imported only when cli/args.py's fast path cannot read the command line itself:
argparse and the gettext/locale it imports cost ~4.5 ms, a tenth of a search.
argparse's own errors exit 2, which rq reserves for "still warming"; this parser
raises UsageError (exit 64, one line on stderr) instead.
"""

from __future__ import annotations

import argparse
import os

from rq_engine.core.errors import UsageError

TYPE_CHECKING = False  # `typing` costs ~2 ms to import
if TYPE_CHECKING:
    from typing import NoReturn

RANKERS = ("text-ranker/bm25-v1", "text-ranker/full-scan-v1")
DEFAULT_RANKER = "text-ranker/bm25-v1"


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """HelpFormatter given its width up front (the epilog's table kept as written).

    argparse builds a formatter inside every add_argument() call, and one built
    without a width imports shutil (+ zlib, bz2, lzma: ~3 ms) for the terminal size.
    """

    def __init__(self, prog: str) -> None:
        try:
            width = os.get_terminal_size(2).columns - 2
        except OSError:
            width = 78
        super().__init__(prog, width=max(width, 40))


# docs/cli.md "Environment" says more of each; a test holds the two to the same names.
ENVIRONMENT = (
    ("RQ_HOME", "where the index lives (default ~/.local/share/rq)"),
    ("RQ_CACHE", "disposable caches (default ~/.cache/rq)"),
    ("RQ_MAX_FILE_BYTES", "skip files larger than this (default 1 MiB)"),
    ("RQ_WAIT_BUDGET_MS", "how long a program waits for a warming answer (default 60000)"),
    ("RQ_WARM_BUDGET_MS", "how long one detached warmer sweeps (default 30000)"),
    ("RQ_WARM_RECHECK_MS", "how long a nothing-moved verdict is trusted (default 10000)"),
    ("RQ_WARM_DETACH", "0: warm in the querying process, after the answer"),
    ("RQ_BRANCH_BUDGET_MS", "how long a search waits for git's branch files (default 10)"),
    ("RQ_THEME", "the picker's default theme"),
    ("RQ_BIND", "the picker's keys, fzf's KEY:ACTION,... form (--bind replaces it)"),
    ("RQ_TMUX_POPUP", "the --tmux popup's WIDTH,HEIGHT (default 80%,70%)"),
    ("RQ_MCP_MAX_CHARS", "the character budget of one MCP reply (default 20000)"),
    ("RQ_TEXT_CACHE_DETACH", "0: build the text cache in the querying process"),
    ("RQ_TEXT_CACHE_COMPACT_AT", "overlay rows before a new text-cache base (default 5000)"),
    ("VISUAL, EDITOR", "the editor the picker and --open open"),
    ("NO_COLOR", "no colour in plain output"),
)
# docs/cli.md "Exit codes" in full; the man page's EXIT STATUS (a test holds the three
# — this, the help's line below and the docs' table — to the same codes).
EXIT_STATUS = (
    (0, "results"),
    (1, "no match, and the index is complete (a definitive miss)"),
    (2, "no match yet: the index is still warming, or the directory is not indexed"),
    (3, "no match, and nothing to match: the complete index holds no file rq reads"),
    (64, "usage error (bad flag or value); --web where no forge URL applies"),
    (74, "I/O or store error (an editor --open cannot start, an unreadable or damaged index)"),
    (130, "interrupted (Ctrl-C, or Esc in the picker) with nothing to show"),
)
SHELLS = ("bash", "zsh", "fish")
EPILOG = (
    "environment:\n"
    + "".join(
        # a name too long for the column gets its meaning on the next line (as argparse)
        f"  {name:<20}{meaning}\n" if len(name) < 20 else f"  {name}\n  {'':<20}{meaning}\n"
        for name, meaning in ENVIRONMENT
    )
    + "\nExit codes: 0 results, 1 no match, 2 index still warming, 3 nothing rq reads here,"
    " 64 usage, 74 I/O or store,"
    " 130 interrupted."
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rq",
        formatter_class=_Formatter,
        description="Find the one definition you most likely want, as path:line.",
        epilog=EPILOG,
    )
    p.add_argument(
        "query", nargs="?", help="what to find: a name, a fragment, a typo, Foo::Bar#baz"
    )
    q = p.add_argument_group("one-shot search")
    q.add_argument(
        "-q", dest="oneshot", action="store_true", help="print results and exit (no picker)"
    )
    q.add_argument(
        "--json",
        action="store_true",
        help="one JSON object (also with --text, --index, --drop, --status, --check)",
    )
    q.add_argument("--ndjson", action="store_true", help="one JSON object a line")
    q.add_argument(
        "--vimgrep",
        action="store_true",
        help="path:line:col:text lines for vim -q, quickfix and grep-mode (picker: the pick so)",
    )
    q.add_argument("--explain", action="store_true", help="show each result's score breakdown")
    q.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N results (default 20)"
    )
    q.add_argument("--all-repos", action="store_true", help="search every indexed repository")
    q.add_argument(
        "--anchor",
        metavar="FILE:LINE[:COL]",
        default=None,
        help="rank from here: definitions enclosing the line, then near the file, first",
    )
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
    o = p.add_argument_group("the best match, opened (a miss: as -q)")
    o.add_argument(
        "-o",
        "--open",
        action="store_true",
        help="open it in $VISUAL/$EDITOR at its line; exit with the editor's code",
    )
    o.add_argument(
        "--show",
        action="store_true",
        help="print its definition's source under a path:line header (at most 200 lines)",
    )
    o.add_argument(
        "--web",
        action="store_true",
        help="print its forge URL at HEAD (GitHub, GitLab, Bitbucket, Gitea; from origin)",
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
    i.add_argument(
        "--check",
        action="store_true",
        help="check the index (SQLite integrity, fuzzy index and names): 0 sound, 74 not",
    )
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
    u.add_argument(
        "--print0",
        action="store_true",
        help="print path:line ended by NUL, not newline (picker: the pick; with -q: each result)",
    )
    u.add_argument("--tmux", action="store_true", help="open the picker in a tmux popup")
    u.add_argument("--theme", metavar="NAME", help="picker theme (see themes/)")
    u.add_argument(
        "--bind",
        action="append",
        metavar="KEY:ACTION,...",
        default=None,
        help="picker keys in fzf's --bind form, in place of RQ_BIND (repeatable)",
    )
    a = p.add_argument_group("agents")
    a.add_argument(
        "--mcp",
        action="store_true",
        help="serve MCP over stdio for coding agents (with --all-repos: every indexed repo)",
    )
    s = p.add_argument_group("shell and manual")
    s.add_argument(
        "--shell",
        metavar="|".join(SHELLS),
        default=None,
        help="print key bindings (alt-i inserts picks, alt-j opens one) and flag completion"
        ' to eval: eval "$(rq --shell bash)"',
    )
    s.add_argument(
        "--man",
        action="store_true",
        help="print the manual page (roff): rq --man > rq.1 && man ./rq.1",
    )
    p.add_argument(
        "--version", action="store_true", help="print the version, commit and index schema"
    )
    return p
