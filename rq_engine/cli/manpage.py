"""`rq --man`: the manual page in roff, written from cli/parser.py's parser and tables.

OPTIONS are the parser's flags and help strings group by group, ENVIRONMENT the
list `--help` prints, EXIT STATUS parser.EXIT_STATUS (docs/cli.md's table), so
the page cannot drift from the CLI. Imports argparse: never on the one-shot path.
"""

from __future__ import annotations

import argparse

from rq_engine.cli.parser import ENVIRONMENT, EXIT_STATUS, build_parser


def roff(text: str) -> str:
    """Text made safe for roff: backslashes, flag hyphens, a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def _flag(action: argparse.Action, sep: str = ", ", space: str = " ") -> str:
    """`\\fB\\-o\\fR, \\fB\\-\\-open\\fR` with its value: ` \\fIDIR\\fR` (`[DIR]` if optional)."""
    names = sep.join(f"\\fB{roff(s)}\\fR" for s in action.option_strings)
    if action.nargs == 0:
        return names
    meta = action.metavar or (
        "{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest.upper()
    )
    value = f"\\fI{roff(str(meta))}\\fR"
    return f"{names}{space}[{value}]" if action.nargs == "?" else f"{names}{space}{value}"


def _synopsis(parser: argparse.ArgumentParser) -> list[str]:
    out = [".B rq"]
    for a in parser._actions:
        if a.help == argparse.SUPPRESS or not a.option_strings or a.dest == "help":
            continue
        # (`\\ ` keeps a flag and its value on one line; `\\&` ends no sentence: one space)
        out.append("[" + _flag(a, sep=" | ", space="\\ ") + "]\\&")
    out.append("[\\fIQUERY\\fR]")
    return out


def render(version: str = "") -> str:
    parser = build_parser()
    lines = [
        '.TH RQ 1 "" "rq' + (f" {roff(version)}" if version else "") + '" "User Commands"',
        ".nh",  # no hyphenation: flags stay whole and searchable
        ".ad l",
        ".SH NAME",
        "rq \\- " + roff(str(parser.description).rstrip(".")),
        ".SH SYNOPSIS",
        *_synopsis(parser),
        ".SH DESCRIPTION",
        roff(str(parser.description)),
        "On a terminal, \\fBrq\\fR [\\fIQUERY\\fR] opens the picker; with \\fB\\-q\\fR, or",
        "with stdout not a terminal, it prints ranked results as \\fIpath\\fR:\\fIline\\fR",
        "and exits.",
        "Everything is a flag: the positional argument is always a query.",
        ".SH OPTIONS",
    ]
    for group in parser._action_groups:
        shown = [a for a in group._group_actions if a.help != argparse.SUPPRESS]
        if not shown:
            continue
        title = {"positional arguments": "arguments", "options": "general"}.get(
            str(group.title), str(group.title)
        )
        lines.append(f".SS {roff(title)}")
        for a in shown:
            lines.append(".TP")
            lines.append(_flag(a) if a.option_strings else f"\\fI{roff(a.dest.upper())}\\fR")
            lines.append(roff(" ".join(str(a.help).split())))
    lines.append(".SH ENVIRONMENT")
    for name, meaning in ENVIRONMENT:
        lines += [".TP", ", ".join(f"\\fB{roff(n.strip())}\\fR" for n in name.split(","))]
        lines.append(roff(meaning))
    lines.append(".SH EXIT STATUS")
    for code, meaning in EXIT_STATUS:
        lines += [".TP", f"\\fB{code}\\fR", roff(meaning)]
    lines += [
        ".SH SEE ALSO",
        "The documents under \\fIdocs/\\fR in rq's source: cli.md (every flag in full),",
        "guide.md (the picker's keys), EDITORS.md (editors and shell bindings).",
    ]
    return "\n".join(lines) + "\n"
