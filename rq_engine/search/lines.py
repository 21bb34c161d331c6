"""Editor-ready result lines: `path:line:col:text` (--vimgrep) and `path:line` records.

Shared by `rq -q` (cli/cmd_query.py) and the picker's print mode (rq_tui/app.py),
so both print a pick the same way; beside search/render.py (the JSON form), below
every face, so no face imports another for it. The vimgrep form is ripgrep's `--vimgrep`
(`path:line:col:text`), which vim's default 'errorformat' (`vim -q`, `:cfile`),
Neovim and Emacs grep-mode parse: `col` is the 1-based byte column of the
definition's name on its line (1 when the name is not on it), `text` the source
line shown through `visible` (tabs kept). Stdlib + rq_engine.core/search only: it
runs on the `rq -q` hot path (one read of each result's file, ≤ RQ_MAX_FILE_BYTES).
"""

from __future__ import annotations

from rq_engine.core.escape import visible
from rq_engine.search.render import display_path

TYPE_CHECKING = False  # `typing` costs ~2 ms to import on the hot path
if TYPE_CHECKING:
    from rq_engine.search.types import Hit


def location(hit: Hit, cwd: str) -> str:
    """`path:line` as every plain face prints it (the path relative to `cwd`, shown)."""
    return f"{visible(display_path(hit, cwd))}:{hit.line}"


def source_line(path: str, line: int) -> bytes:
    """Line `line` (1-based) of the file at `path`, without its end; b"" when the file
    is gone, unreadable or shorter (a result is still worth a line)."""
    try:
        with open(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                if n == line:
                    return raw.rstrip(b"\r\n")
    except OSError:
        pass
    return b""


def vimgrep(hit: Hit, cwd: str) -> str:
    """`path:line:col:text` for one result (no line end)."""
    raw = source_line(hit.abspath, hit.line)
    at = raw.find(hit.name.encode("utf-8", "surrogateescape")) if hit.name else -1
    col = at + 1 if at >= 0 else 1
    text = visible(raw.decode("utf-8", "surrogateescape"), tabs=True)
    return f"{location(hit, cwd)}:{col}:{text}"


def record(hit: Hit, cwd: str, as_vimgrep: bool) -> str:
    """The one printed form of a pick: vimgrep or `path:line`."""
    return vimgrep(hit, cwd) if as_vimgrep else location(hit, cwd)
