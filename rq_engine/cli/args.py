"""Argument parsing. Everything is a flag: the positional argument is always a query.

The one-shot forms a shell, an editor or an agent sends on every search (`rq -q
[--json|--ndjson|--vimgrep] [--print0] [--explain] [--limit N] [--all-repos] [--wait DUR|--no-wait]
[--anchor FILE:LINE[:COL]] [-C DIR] QUERY`, and `-o/--open`, `--show`, `--web` in place of `-q`) are read here directly; anything else goes to the full argparse
parser in cli/parser.py (argparse, gettext and locale cost ~4.5 ms of a ~40 ms
search). Both give the same namespace; a test holds them to it.
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
# A command line naming one of these is a one-shot query the fast path may read.
_ONE_SHOT = frozenset(("-q", "-o", "--open", "--show", "--web", "--text"))
_VALUED = {
    "--limit": "limit",
    "--wait": "wait",
    "-C": "cwd",
    "--anchor": "anchor",
    "--text": "text",
    "--ranker": "ranker",
}


def _fast(argv: list[str]) -> SimpleNamespace | None:
    """The namespace of a plain one-shot query, or None for anything else (help, other
    modes, `--`, a query that starts with `-`, a repeated flag, a malformed number)."""
    if not any(a.partition("=")[0] in _ONE_SHOT for a in argv):
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
        if name in seen:
            return None
        seen.add(name)
        if name in _SWITCHES and not eq:
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
    if ns.json and ns.ndjson:
        raise UsageError("--json and --ndjson are exclusive")
    for form in ("vimgrep", "print0"):
        for other in ("json", "ndjson", "explain"):
            if getattr(ns, form) and getattr(ns, other):
                raise UsageError(f"--{form} and --{other} are exclusive")
    if ns.limit is not None and ns.limit < 1:
        raise UsageError("--limit takes a whole number of at least 1")
    modes = [
        f
        for f in (
            "index",
            "status",
            "check",
            "drop",
            "text",
            "export_graph",
            "usage",
            "warm",
            "mcp",
        )
        if getattr(ns, f)
    ]
    if len(modes) > 1:
        raise UsageError(
            f"--{modes[0].replace('_', '-')} and --{modes[1].replace('_', '-')} are exclusive"
        )
    openers = [f for f in ("open", "show", "web") if getattr(ns, f)]
    if openers:
        # (one best match, printed or opened one way: no list forms, no other command)
        clash = [
            f
            for f in ("show", "web", *modes, "json", "ndjson", "vimgrep", "print0", "explain")
            if f != openers[0] and getattr(ns, f)
        ]
        if ns.limit is not None:
            clash.append("limit")
        clash += [f for f in ("print_only", "tmux", "theme") if getattr(ns, f)]
        if clash:
            other = {"print_only": "--print"}.get(clash[0], "--" + clash[0].replace("_", "-"))
            raise UsageError(f"--{openers[0]} and {other} are exclusive")
    if ns.anchor is not None and modes:
        raise UsageError(f"--anchor goes with a query, not --{modes[0].replace('_', '-')}")
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
