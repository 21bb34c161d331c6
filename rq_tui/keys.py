"""The picker's key map: fzf's default keys and action names, `RQ_BIND` overrides, the help rows.

Stdlib only (no textual): `build()` checks `RQ_BIND` before the UI loads, so a
bad spec is one line on stderr and exit 64 like any usage error. Keys are
written as fzf writes them (`ctrl-a`, `alt-bs`, `shift-up`, `btab`, `f1`, `?`)
and translated here to Textual's key names (`ctrl+a`, `ctrl+w`, `shift+up`).

Every key is dispatched by rq_tui.widgets.QueryInput in the order it arrived
(see its docstring): no Textual Binding is involved, priority or not.
"""

from __future__ import annotations

from collections.abc import Mapping

from rq_engine.core.errors import UsageError

# action -> what it does (the help screen and docs/guide.md list these).
ACTIONS: dict[str, str] = {
    "accept": "open the pick(s) in $VISUAL / $EDITOR (print them with --print)",
    "abort": "quit without output (exit 130)",
    "up": "move the selection up",
    "down": "move the selection down",
    "page-up": "move the selection a page up",
    "page-down": "move the selection a page down",
    "first": "select the first result",
    "last": "select the last result",
    "toggle": "mark / unmark the selection (multi-select)",
    "toggle+down": "mark / unmark, then move down",
    "toggle+up": "mark / unmark, then move up",
    "toggle-all": "mark every listed result, or unmark them",
    "deselect-all": "unmark everything",
    "beginning-of-line": "cursor to the start of the query",
    "end-of-line": "cursor to the end of the query",
    "backward-char": "cursor one character left",
    "forward-char": "cursor one character right",
    "backward-word": "cursor one word left",
    "forward-word": "cursor one word right",
    "backward-delete-char": "delete the character before the cursor",
    "delete-char": "delete the character under the cursor",
    "backward-kill-word": "delete the word before the cursor",
    "kill-word": "delete the word after the cursor",
    "unix-line-discard": "delete from the start of the query to the cursor",
    "kill-line": "delete from the cursor to the end of the query",
    "clear-query": "empty the query",
    "yank": "insert the text deleted last",
    "preview-up": "scroll the explain pane one line up",
    "preview-down": "scroll the explain pane one line down",
    "preview-page-up": "scroll the explain pane a page up",
    "preview-page-down": "scroll the explain pane a page down",
    "toggle-preview": "show or hide the explain pane",
    "toggle-all-repos": "search all repositories / only this one",
    "toggle-text": "switch between symbol search and text search (words, ranked)",
    "copy": "copy path:line to the clipboard (OSC 52)",
    "prev-history": "the previous query from the history",
    "next-history": "the next query from the history",
    "help": "this help",
    "ignore": "do nothing (unbinds a key)",
}

# fzf's defaults where fzf has one; rq's own actions on keys fzf leaves free.
DEFAULT_BINDINGS: tuple[tuple[str, str], ...] = (
    ("enter", "accept"),
    ("esc", "abort"),
    ("ctrl-c", "abort"),
    ("ctrl-g", "abort"),
    ("ctrl-q", "abort"),
    ("up", "up"),
    ("ctrl-k", "up"),
    ("ctrl-p", "up"),
    ("down", "down"),
    ("ctrl-j", "down"),
    ("ctrl-n", "down"),
    ("pgup", "page-up"),
    ("pgdn", "page-down"),
    ("ctrl-home", "first"),
    ("ctrl-end", "last"),
    ("tab", "toggle+down"),
    ("btab", "toggle+up"),
    ("ctrl-a", "beginning-of-line"),
    ("home", "beginning-of-line"),
    ("ctrl-e", "end-of-line"),
    ("end", "end-of-line"),
    ("ctrl-b", "backward-char"),
    ("left", "backward-char"),
    ("ctrl-f", "forward-char"),
    ("right", "forward-char"),
    ("alt-b", "backward-word"),
    ("alt-f", "forward-word"),
    ("bspace", "backward-delete-char"),
    ("del", "delete-char"),
    ("ctrl-w", "backward-kill-word"),
    ("alt-bs", "backward-kill-word"),
    ("alt-d", "kill-word"),
    ("ctrl-u", "unix-line-discard"),
    ("ctrl-y", "yank"),
    ("shift-up", "preview-up"),
    ("shift-down", "preview-down"),
    ("shift-pgup", "preview-page-up"),
    ("shift-pgdn", "preview-page-down"),
    ("alt-p", "toggle-preview"),
    ("alt-a", "toggle-all-repos"),
    ("alt-t", "toggle-text"),
    ("alt-y", "copy"),
    ("alt-up", "prev-history"),
    ("alt-down", "next-history"),
    ("f1", "help"),
)

# fzf key names -> Textual's. Textual reads ESC DEL (alt-backspace) as ctrl+w, ESC b /
# ESC f as ctrl+left / ctrl+right and ctrl-h as backspace: those pairs are one key here.
_NAMED = {
    "enter": "enter", "return": "enter", "ctrl-m": "enter",
    "esc": "escape", "escape": "escape",
    "tab": "tab", "ctrl-i": "tab", "btab": "shift+tab", "shift-tab": "shift+tab",
    "bspace": "backspace", "bs": "backspace", "backspace": "backspace", "ctrl-h": "backspace",
    "alt-bs": "ctrl+w", "alt-bspace": "ctrl+w", "alt-backspace": "ctrl+w",
    "alt-b": "ctrl+left", "alt-f": "ctrl+right",
    "del": "delete", "delete": "delete",
    "up": "up", "down": "down", "left": "left", "right": "right",
    "home": "home", "end": "end", "insert": "insert",
    "pgup": "pageup", "page-up": "pageup", "pgdn": "pagedown", "page-down": "pagedown",
    "space": "space", "ctrl-space": "ctrl+@", "ctrl-/": "ctrl+underscore",
    "ctrl-_": "ctrl+underscore",
    "comma": "comma", "colon": "colon",
}  # fmt: skip
_MODIFIED = ("up", "down", "left", "right", "home", "end", "pgup", "pgdn", "tab", "enter", "del")
_PUNCTUATION = {  # Textual names printable keys by their Unicode name
    "?": "question_mark", ",": "comma", ":": "colon", ";": "semicolon", "/": "slash",
    "!": "exclamation_mark", ".": "full_stop", "-": "minus", "+": "plus", "=": "equals_sign",
    "*": "asterisk", "#": "number_sign", "@": "at", "&": "ampersand", "%": "percent_sign",
    "$": "dollar_sign", "^": "circumflex_accent", "~": "tilde", "|": "vertical_line",
    "<": "less_than_sign", ">": "greater_than_sign", "_": "underscore", "'": "apostrophe",
    '"': "quotation_mark", "`": "grave_accent", "\\": "backslash",
    "[": "left_square_bracket", "]": "right_square_bracket",
    "(": "left_parenthesis", ")": "right_parenthesis",
    "{": "left_curly_bracket", "}": "right_curly_bracket",
}  # fmt: skip

Keymap = dict[str, tuple[str, ...]]  # Textual key -> actions run in order


class BindError(UsageError):
    """A bad RQ_BIND (or --bind) spec: the message names the part that is wrong (exit 64)."""


def textual_key(spec: str, source: str = "RQ_BIND") -> str:
    """The Textual key name for an fzf key name; BindError (naming `source`) when it names
    no key."""
    low = spec.lower() if len(spec) > 1 else spec
    if low in _NAMED:
        return _NAMED[low]
    if len(spec) == 1 and spec.isprintable():
        if spec.isalnum():
            return spec.lower() if spec.isascii() else spec
        return _PUNCTUATION.get(spec, spec)
    if low.startswith("f") and low[1:].isdigit() and 1 <= int(low[1:]) <= 24:
        return low
    for mod in ("ctrl-alt-", "ctrl-", "alt-", "shift-"):
        if low.startswith(mod):
            rest = spec[len(mod) :]
            prefix = mod[:-1].replace("-", "+") + "+"
            if len(rest) == 1 and rest.isascii() and rest.isalpha() and mod != "shift-":
                upper = mod == "alt-" and rest.isupper()
                return prefix + ("shift+" if upper else "") + rest.lower()
            if rest.lower() in _MODIFIED:
                name = _NAMED[rest.lower()]
                return prefix + name
    raise BindError(f"{source}: unknown key {spec!r}")


def parse(spec: str, source: str = "RQ_BIND") -> list[tuple[str, str, tuple[str, ...]]]:
    """fzf's `key:action[+action],key:action` -> [(fzf key, Textual key, actions)].

    A key may itself be `:` or `,` (`::abort`, `,:toggle`), as in fzf. `source` names
    where the spec came from in an error (`RQ_BIND`, or `--bind`, which rq_engine/main.py
    checks here and then hands on as RQ_BIND)."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    i = 0
    while i < len(spec):
        colon = spec.find(":", i + 1)  # (the key is at least one character: `::` works)
        if colon < 0:
            raise BindError(f"{source}: {spec[i:]!r} has no ':ACTION' (write KEY:ACTION)")
        key = spec[i:colon]
        end = spec.find(",", colon + 1)
        end = len(spec) if end < 0 else end
        action = spec[colon + 1 : end]
        if not key.strip() or not action:
            raise BindError(f"{source}: {spec[i:end]!r} is not KEY:ACTION")
        actions = tuple(_split_actions(action))
        for a in actions:
            if a not in ACTIONS or "+" in a:
                raise BindError(
                    f"{source}: unknown action {a!r} for {key!r} (the actions are listed in "
                    "docs/guide.md and on F1)"
                )
        out.append((key, textual_key(key, source), actions))
        i = end + 1
    return out


def _split_actions(action: str) -> list[str]:
    # `toggle+down` chains two actions; ACTIONS also names the chain for the help text.
    return [a.lower() for a in action.split("+")]


def keymap(env: Mapping[str, str]) -> tuple[Keymap, dict[str, list[str]]]:
    """The key map (defaults, then RQ_BIND) and, per action, the fzf keys bound to it."""
    pairs = [(k, textual_key(k), tuple(_split_actions(a))) for k, a in DEFAULT_BINDINGS]
    spec = env.get("RQ_BIND", "").strip()
    if spec:
        pairs += parse(spec)
    table: Keymap = {}
    names: dict[str, list[str]] = {}  # Textual key -> its fzf spellings (ctrl-w, alt-bs)
    for fzf, key, actions in pairs:
        if table.get(key) == actions:
            names[key].append(fzf)
        else:
            table[key], names[key] = actions, [fzf]
    by_action: dict[str, list[str]] = {}
    for key, actions in table.items():
        if actions == ("ignore",):
            continue
        by_action.setdefault("+".join(actions), []).extend(names[key])
    return table, by_action


def help_rows(by_action: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """(keys, what they do) for every bound action, in the ACTIONS order."""
    order = {a: i for i, a in enumerate(ACTIONS)}
    rows = []
    for action in sorted(by_action, key=lambda a: order.get(a.split("+")[0], len(order))):
        what = ACTIONS.get(action) or " then ".join(ACTIONS[a] for a in action.split("+"))
        rows.append(("  ".join(by_action[action]), what))
    return rows
