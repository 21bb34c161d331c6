"""Argument parsing. Everything is a flag: the positional argument is always a query.

The one-shot forms a shell, an editor or an agent sends on every search (`rq -q
[--json|--ndjson|--vimgrep] [--print0] [--explain] [--limit N] [--all-repos] [--wait DUR|--no-wait]
[--anchor FILE:LINE[:COL]] [-C DIR] QUERY`, and `-o/--open`, `--show`, `--web` in place of `-q`)
and an explicit index (`rq --index [DIR] [--path SUB]... [--json|--ndjson] [-C DIR]`)
are read here directly; anything else goes to the full argparse
parser in cli/parser.py (argparse, gettext and locale cost ~4.5 ms of a ~40 ms
search). Both give the same namespace; a test holds them to it. Then one table, TAKES,
says which flags go with which mode, whichever parser read them.
"""

from __future__ import annotations

from types import SimpleNamespace

from rq_engine.core.errors import UsageError

TYPE_CHECKING = False  # `typing` costs ~2 ms to import on the hot path
if TYPE_CHECKING:
    import argparse

# Every attribute the full parser sets, with its default (tests compare the two).
DEFAULTS: dict[str, object] = {
    "query": None,
    "oneshot": False,
    "json": False,
    "ndjson": False,
    "explain": False,
    "limit": None,
    "all_repos": False,
    "anchor": None,
    "cwd": None,
    "wait": None,
    "no_wait": False,
    "index": None,
    "path": None,
    "status": False,
    "check": False,
    "usage": False,
    "warm": None,
    "drop": None,
    "text": None,
    "ranker": None,
    "graph": None,
    "export_graph": None,
    "print_only": False,
    "vimgrep": False,
    "print0": False,
    "tmux": False,
    "mcp": False,
    "theme": None,
    "version": False,
    "open": False,
    "show": False,
    "web": False,
    "bind": None,
    "shell": None,
    "man": False,
}
_SWITCHES = {
    "-q": "oneshot",
    "--json": "json",
    "--ndjson": "ndjson",
    "--explain": "explain",
    "--all-repos": "all_repos",
    "--no-wait": "no_wait",
    "--vimgrep": "vimgrep",
    "--print0": "print0",
    "-o": "open",
    "--open": "open",
    "--show": "show",
    "--web": "web",
}
# A command line naming one of these is what the fast path may read: a one-shot query, or
# (`--index`) an explicit index: importing argparse (gettext, locale) and building the
# full parser cost ~10 ms (a loaded 2-core machine) before its
# walk and parse could start, on a ~0.3 s cold pass over laravel.
_FAST = frozenset(("-q", "-o", "--open", "--show", "--web", "--text", "--index"))
_VALUED = {
    "--limit": "limit",
    "--wait": "wait",
    "-C": "cwd",
    "--anchor": "anchor",
    "--text": "text",
    "--ranker": "ranker",
}
# Flags whose value may be left out (argparse's nargs="?"): then this constant.
_OPTIONAL = {"--index": "."}


def _fast(argv: list[str]) -> SimpleNamespace | None:
    """The namespace of a plain one-shot query or `--index [DIR] [--path SUB]...`, or
    None for anything else (help, other modes, `--`, a query or a value that starts
    with `-`, a repeated flag other than --path, a malformed number)."""
    if not any(a.partition("=")[0] in _FAST for a in argv):
        return None
    ns = SimpleNamespace(**DEFAULTS)
    seen: set[str] = set()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            if ns.query is not None:
                return None
            ns.query = arg
            continue
        name, eq, value = arg.partition("=")
        if name == "--path":  # (argparse's append: repeatable)
            if not eq:
                if i >= len(argv) or argv[i].startswith("-"):
                    return None
                value = argv[i]
                i += 1
            ns.path = [*(ns.path or ()), value]
            continue
        if name in seen:
            return None
        seen.add(name)
        if name in _OPTIONAL:
            if not eq:
                if i < len(argv) and argv[i].startswith("-"):
                    if argv[i] == "-" or argv[i][1:2].isdigit():
                        return None  # (argparse takes `-` and `-1` for the value)
                    value = _OPTIONAL[name]
                elif i < len(argv):
                    value = argv[i]
                    i += 1
                else:
                    value = _OPTIONAL[name]
            setattr(ns, name[2:], value)
        elif name in _SWITCHES and not eq:
            setattr(ns, _SWITCHES[name], True)
        elif name in _VALUED:
            if not eq:
                if i >= len(argv) or argv[i].startswith("-"):
                    return None  # (argparse words this error)
                value = argv[i]
                i += 1
            if name == "--limit":
                try:
                    ns.limit = int(value)
                except ValueError:
                    return None
            else:
                setattr(ns, _VALUED[name], value)
        else:
            return None
    return ns


# Which flags go with which mode: the rule, in one place (docs/cli.md, "Which flags go
# together"). A command line does one thing, its mode: the command flag it names
# (`--index`, `--text`, `-o`, ...) or, with none, a query. A query is answered once when
# it names what only a one-shot answer reads (ONE_SHOT), picked from when it names what
# only the picker reads (`--print`, `--theme`, `--tmux`); with neither, the terminal
# decides. Each mode lists the flags it honours: any other given with it is a usage
# error naming both (64), never a flag silently ignored. Every mode takes -C (where it
# runs) and --bind (checked, whatever the face, as the RQ_BIND it replaces).
_QUERY = ("query", "limit", "all_repos", "anchor", "vimgrep", "print0")
ONE_SHOT = ("oneshot", "json", "ndjson", "explain", "wait", "no_wait")
_PICKER = ("print_only", "theme", "tmux")
_OPENED = ("query", "oneshot", "all_repos", "anchor", "wait", "no_wait")
_JSON = ("json", "ndjson")
_RANKED = ("oneshot", *_JSON, "explain", "limit", "all_repos", "wait", "no_wait")  # (--text's)
TAKES: dict[str, tuple[str, ...]] = {
    "query": _QUERY,
    "oneshot": (*_QUERY, *ONE_SHOT),
    "picker": (*_QUERY, *_PICKER),
    "open": _OPENED,
    "show": _OPENED,
    "web": _OPENED,
    "text": (*_RANKED, "ranker", "graph"),
    "export_graph": ("graph",),
    "graph": (),  # --graph FILE alone: the file's summary
    "index": (*_JSON, "path"),
    "drop": _JSON,
    "status": _JSON,
    "check": _JSON,
    "usage": ("json",),  # (a table or one array: no stream of lines)
    "mcp": ("all_repos",),  # (the agent sends the query and the rest)
    "warm": (),
    "version": (),
    "shell": (),
    "man": (),
}
# The commands, in the order an "are exclusive" error names two of them. --graph is a
# command alone and otherwise the source --text or --export-graph reads.
_COMMANDS = (
    *("version", "shell", "man", "mcp", "index", "drop", "status", "check", "usage", "warm"),
    *("text", "export_graph", "open", "show", "web"),
)
_GLOBAL = ("cwd", "bind")
# Flags one mode takes that do not go together.
EXCLUSIVE = (
    ("json", "ndjson"),
    *((form, other) for form in ("vimgrep", "print0") for other in ("json", "ndjson", "explain")),
    ("wait", "no_wait"),
    # a graph.json is one repository, read as it is: nothing to search beside it or wait for
    *(("graph", other) for other in ("all_repos", "wait", "no_wait")),
)
# Said after "--X takes no query".
_NO_QUERY_HINT = {
    "mcp": ": the agent sends them",
    "text": ": give the words to --text",
    "index": " (one DIR: {q!r} is a second)",
    "drop": " (one DIR: {q!r} is a second)",
    "graph": ": it goes with --text WORDS or --export-graph FILE",
}
_SPELLED = {"oneshot": "-q", "print_only": "--print", "cwd": "-C", "query": "a query"}


def _given(ns: object, name: str) -> bool:
    value = getattr(ns, name, None)
    return value is not None and value is not False


def _flag(name: str) -> str:
    return _SPELLED.get(name) or "--" + name.replace("_", "-")


def mode_of(ns: argparse.Namespace) -> str:
    """The one thing the command line asks for: a key of TAKES (UsageError when it
    names two commands)."""
    commands = [c for c in _COMMANDS if _given(ns, c)]
    if not commands and _given(ns, "graph"):
        commands = ["graph"]
    if len(commands) > 1:
        raise UsageError(f"{_flag(commands[0])} and {_flag(commands[1])} are exclusive")
    if commands:
        return commands[0]
    if any(_given(ns, f) for f in ONE_SHOT):
        return "oneshot"
    return "picker" if any(_given(ns, f) for f in _PICKER) else "query"


def _goes_with(name: str) -> str:
    """Where a flag belongs, for an error: `a query, --open, --show or --web`."""
    # (a query answered once or picked from; the picker alone for what only it reads)
    where = ["a query"] if name in TAKES["oneshot"] else []
    where += ["the picker"] if not where and name in TAKES["picker"] else []
    where += [_flag(m) for m, takes in TAKES.items() if m in _COMMANDS and name in takes]
    return ", ".join(where[:-1]) + " or " + where[-1] if len(where) > 1 else where[0]


def check_combination(ns: argparse.Namespace) -> None:
    """Every flag given goes with the mode, and with the others (UsageError if not)."""
    mode = mode_of(ns)
    takes = TAKES[mode]
    # how the mode was asked for: its command flag, or the first face-only flag given
    named = (
        _flag(mode)
        if mode in _COMMANDS or mode == "graph"
        else next((_flag(f) for f in (*ONE_SHOT, *_PICKER) if _given(ns, f)), "")
    )
    for name in DEFAULTS:
        if name in (mode, "query", *_GLOBAL, *takes) or not _given(ns, name):
            continue
        where = _goes_with(name)
        if not named:
            raise UsageError(f"{_flag(name)} goes with {where}")
        flag = _flag(name)
        raise UsageError(f"{named} and {flag} are exclusive ({flag} goes with {where})")
    if ns.query is not None and "query" not in takes:
        hint = _NO_QUERY_HINT.get(mode, "").format(q=ns.query)
        said = f"--shell {ns.shell}" if mode == "shell" else named
        raise UsageError(f"{said} takes no query{hint}")
    for a, b in EXCLUSIVE:
        if _given(ns, a) and _given(ns, b):
            raise UsageError(f"{_flag(a)} and {_flag(b)} are exclusive")


def wants_one_shot(ns: argparse.Namespace) -> bool:
    """A query that names what only a one-shot answer reads is answered once, on a
    terminal too (the picker would not read it)."""
    return any(_given(ns, f) for f in ONE_SHOT)


def parse(argv: list[str]) -> argparse.Namespace:
    fast = _fast(argv)
    if fast is not None:
        ns: argparse.Namespace = fast  # type: ignore[assignment]  # same attributes
    else:
        from rq_engine.cli.parser import build_parser

        ns = build_parser().parse_args(argv)
    from rq_engine.core.query import as_text

    # A byte that is not UTF-8 arrives as a surrogate escape (`$'set\\xff'`): made
    # text here, or SQLite and the output would fail on it.
    if ns.query is not None:
        ns.query = as_text(ns.query)
    if ns.text is not None:
        ns.text = as_text(ns.text)
    check_combination(ns)
    if ns.limit is not None and ns.limit < 1:
        raise UsageError("--limit takes a whole number of at least 1")
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
