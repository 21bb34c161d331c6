"""`rq --shell bash|zsh|fish`: key bindings and flag completion, printed for the shell to eval.

Two widgets, on keys no shell binds by default (bash's readline, zsh's emacs
keymap and fish's preset bindings all leave Alt-I and Alt-J free; Ctrl-T is
fzf's and Alt-R is bash's revert-line):
  alt-i  run the picker (`rq --print`, tab marks several) and insert the picks
         at the cursor, each quoted for the shell, followed by a space;
  alt-j  run the picker and open the pick(s) in $VISUAL/$EDITOR at their line
         (the picker's own Enter: docs/EDITORS.md).
Completion lists the flags of cli/parser.py's argparse parser, so a new flag
completes with no edit here. Imports argparse (through the parser): never on
the one-shot path.
"""

from __future__ import annotations

import argparse

from rq_engine.cli.parser import SHELLS, build_parser
from rq_engine.core.errors import UsageError

_PATHS = ("DIR", "FILE", "SUB")  # metavars whose value is a path: files are completed


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's flags as the help lists them (hidden ones left out)."""
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS]


def _values(action: argparse.Action) -> tuple[str, ...] | None:
    """The words a flag's value is one of, or None for any value (no value: ())."""
    if action.nargs == 0:
        return ()
    if action.choices is not None:
        return tuple(str(c) for c in action.choices)
    if action.dest == "shell":
        return SHELLS
    return None


def _squote(text: str) -> str:
    """`text` in single quotes for bash, zsh (and POSIX sh)."""
    return "'" + text.replace("'", "'\\''") + "'"


def _help(action: argparse.Action) -> str:
    return " ".join(str(action.help or "").split())


def bash(parser: argparse.ArgumentParser) -> str:
    flags = " ".join(s for a in options(parser) for s in a.option_strings)
    return f"""\
# rq key bindings and completion for bash: eval "$(rq --shell bash)" in ~/.bashrc
# alt-i: insert picks at the cursor; alt-j: open the pick in $VISUAL/$EDITOR
__rq_insert() {{
  local out line words=''
  out=$(command rq --print) || return 0  # esc: nothing inserted
  while IFS= read -r line; do
    [[ -n $line ]] && words+="$(printf '%q' "$line") "
  done <<< "$out"
  READLINE_LINE=${{READLINE_LINE:0:READLINE_POINT}}$words${{READLINE_LINE:READLINE_POINT}}
  READLINE_POINT=$((READLINE_POINT + ${{#words}}))
}}
__rq_open() {{
  command rq </dev/tty
}}
if [[ $- == *i* ]]; then
  bind -m emacs-standard -x '"\\ei": __rq_insert'
  bind -m emacs-standard -x '"\\ej": __rq_open'
  bind -m vi-insert -x '"\\ei": __rq_insert'
  bind -m vi-insert -x '"\\ej": __rq_open'
fi
complete -o default -W {_squote(flags)} rq
"""


def _zsh_spec(action: argparse.Action) -> str:
    what = _help(action).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    values = _values(action)
    tail = ""
    if values is None:
        meta = str(action.metavar or action.dest).replace(":", "\\:")
        tail = f":{meta}:_files" if action.metavar in _PATHS else f":{meta}: "
    elif values:
        tail = ":value:(" + " ".join(values) + ")"
    if action.nargs == "?":
        tail = ":" + tail  # (an optional value)
    repeat = "*" if isinstance(action, argparse._AppendAction) else ""
    return " ".join(_squote(f"{repeat}{opt}[{what}]{tail}") for opt in action.option_strings)


def zsh(parser: argparse.ArgumentParser) -> str:
    specs = " \\\n    ".join(_zsh_spec(a) for a in options(parser))
    return f"""\
# rq key bindings and completion for zsh: eval "$(rq --shell zsh)" in ~/.zshrc
# alt-i: insert picks at the cursor; alt-j: open the pick in $VISUAL/$EDITOR
rq-insert-widget() {{
  local out words='' line
  out=$(command rq --print </dev/tty) || {{ zle reset-prompt; return 0 }}
  for line in ${{(f)out}}; do [[ -n $line ]] && words+="${{(q)line}} "; done
  LBUFFER+=$words
  zle reset-prompt
}}
rq-open-widget() {{
  command rq </dev/tty >/dev/tty
  zle reset-prompt
}}
zle -N rq-insert-widget
zle -N rq-open-widget
bindkey -M emacs '\\ei' rq-insert-widget
bindkey -M viins '\\ei' rq-insert-widget
bindkey -M emacs '\\ej' rq-open-widget
bindkey -M viins '\\ej' rq-open-widget
_rq() {{
  _arguments -s \\
    {specs} \\
    '1:query: '
}}
if (( $+functions[compdef] )); then compdef _rq rq; fi
"""


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(parser: argparse.ArgumentParser) -> str:
    lines = []
    for a in options(parser):
        parts = ["complete -c rq"]
        for opt in a.option_strings:
            parts.append(f"-l {opt[2:]}" if opt.startswith("--") else f"-s {opt[1:]}")
        values = _values(a)
        if values:
            parts.append("-x -a " + _fish_quote(" ".join(values)))
        elif values is not None:
            pass  # a switch
        elif a.metavar in _PATHS:
            parts.append("-F" if a.nargs == "?" else "-r -F")  # (a path: files offered)
        else:
            parts.append("-x")  # a value, not a file
        parts.append("-d " + _fish_quote(_help(a)))
        lines.append(" ".join(parts))
    completions = "\n".join(lines)
    return f"""\
# rq key bindings and completion for fish: rq --shell fish | source  (in config.fish)
# alt-i: insert picks at the cursor; alt-j: open the pick in $VISUAL/$EDITOR
function __rq_insert
    set -l picks (command rq --print </dev/tty)
    if test $status -eq 0  # (esc: nothing inserted)
        for pick in $picks
            test -n "$pick"; and commandline -i -- (string escape -- $pick)' '
        end
    end
    commandline -f repaint
end
function __rq_open
    command rq </dev/tty >/dev/tty
    commandline -f repaint
end
bind \\ei __rq_insert
bind \\ej __rq_open
if bind -M insert >/dev/null 2>&1
    bind -M insert \\ei __rq_insert
    bind -M insert \\ej __rq_open
end
complete -c rq -f
{completions}
"""


RENDER = {"bash": bash, "zsh": zsh, "fish": fish}


def snippet(shell: str) -> str:
    """The snippet for `shell` (UsageError, exit 64, for a shell rq does not know)."""
    render = RENDER.get(shell)
    if render is None:
        raise UsageError(f"--shell {shell}: rq knows {', '.join(SHELLS)}")
    return render(build_parser())
