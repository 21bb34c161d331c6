"""Source files rq has no plugin for, by language: data and the wording, nothing more.

`rq --index` counts the files it walks past by extension (no file is opened),
coverage stores the tally, and `rq --index`, `rq --status` and a miss say
"12 Kotlin, 3 Swift files not read": a language rq does not read is never a
silent "no match". Pure data and string work: imports nothing, so a miss may
call it (`rq -q` imports it only when there is no result).
"""

from __future__ import annotations

# extension (lower case, as registry.language_for_path compares) -> language name.
# Common source languages without a plugin; `.m` is taken as Objective-C (MATLAB
# shares it). Anything not listed (docs, data, config) is not a source file.
_EXT_TO_NAME: dict[str, str] = {
    ".kt": "Kotlin",
    ".kts": "Kotlin",
    ".swift": "Swift",
    ".scala": "Scala",
    ".sc": "Scala",
    ".cs": "C#",
    ".m": "Objective-C",
    ".mm": "Objective-C",
    ".lua": "Lua",
    ".pl": "Perl",
    ".pm": "Perl",
    ".sh": "Shell",
    ".bash": "Shell",
    ".zsh": "Shell",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".erl": "Erlang",
    ".hrl": "Erlang",
    ".hs": "Haskell",
    ".ml": "OCaml",
    ".mli": "OCaml",
    ".dart": "Dart",
    ".r": "R",
    ".jl": "Julia",
    ".zig": "Zig",
    ".nim": "Nim",
    ".vue": "Vue",
    ".svelte": "Svelte",
    ".fs": "F#",
    ".fsx": "F#",
    ".clj": "Clojure",
    ".cljs": "Clojure",
    ".groovy": "Groovy",
    ".ps1": "PowerShell",
}


def language_name(path: str) -> str | None:
    """The language of a source file rq does not read, or None (read, or not source)."""
    dot = path.rfind(".")
    if dot <= path.rfind("/") + 1:  # no extension, or a dotfile (`.bashrc`)
        return None
    return _EXT_TO_NAME.get(path[dot:].lower())


def encode(counts: dict[str, int]) -> str:
    """The stored form: `Kotlin:12,Swift:3` (most first); '' for none."""
    return ",".join(f"{name}:{n}" for name, n in _ordered(counts))


def decode(stored: str | None) -> dict[str, int]:
    """`encode`'s inverse; anything malformed is left out (never raises)."""
    out: dict[str, int] = {}
    for part in (stored or "").split(","):
        name, _, n = part.rpartition(":")
        if name and n.isdigit():
            out[name] = int(n)
    return out


def summary(counts: dict[str, int]) -> str:
    """`12 Kotlin, 3 Swift files not read` (a single file: `1 Lua file not read`); '' for none."""
    items = _ordered(counts)
    if not items:
        return ""
    total = sum(n for _, n in items)
    noun = "file" if total == 1 else "files"
    return ", ".join(f"{n} {name}" for name, n in items) + f" {noun} not read"


def _ordered(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(((k, v) for k, v in counts.items() if v > 0), key=lambda kv: (-kv[1], kv[0]))
