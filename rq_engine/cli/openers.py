"""The openers of a one-shot query's best match: `--open`, `--show` and `--web`.

cmd_query.py answers the query as `rq -q` does (a miss is the same miss, the same
exit code and line); on a hit, the first result goes here:
- `--open`: to $VISUAL/$EDITOR with the picker's per-editor line syntax
  (core/editor.py, stdlib only: the one place that syntax lives); rq exits with
  the editor's code, 74 when it cannot be started;
- `--show`: a `path:line` header, then the definition's lines (line..end_line of
  the revalidated result, re-read from the file), at most SHOW_MAX_LINES, shown
  through `visible` (tabs kept); plain text, the header cyan on a terminal only;
- `--web`: the forge URL of the definition at HEAD (core/forge.py).
Imports no rich, pygments, textual or tree-sitter.
"""

from __future__ import annotations

import os
import sys

from rq_engine.core.errors import ExitCode, RqError
from rq_engine.core.escape import visible

TYPE_CHECKING = False  # `typing` costs ~2 ms to import on the hot path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from rq_engine.search.types import Hit

# A definition longer than this is cut (a class of 2,000 lines is not a glance).
SHOW_MAX_LINES = 200
_CYAN, _RESET = "\x1b[36m", "\x1b[0m"


def wanted(ns: argparse.Namespace) -> bool:
    return bool(ns.open or ns.show or ns.web)


def act(ns: argparse.Namespace, hit: Hit, cwd: str) -> Callable[[], int]:
    """What to do with the best match, run once the query's store work is finished
    (the index is closed before an editor session starts); returns the exit code."""
    if ns.open:
        return lambda: open_in_editor(hit, cwd)
    if ns.show:
        return lambda: show(hit, cwd)
    return lambda: web(hit)


def open_in_editor(hit: Hit, cwd: str) -> int:
    from rq_engine.core import editor  # the picker's line syntax (stdlib only)

    try:
        cmd = editor.command_for(hit.abspath, hit.line)
        return editor.launch(cmd, cwd=cwd)
    except editor.EditorNotFound as e:
        raise RqError(str(e), ExitCode.IOERR) from e


def source_span(path: str, line: int, end_line: int | None, most: int) -> tuple[list[str], int]:
    """Lines `line`..`end_line` of the file (at most `most` of them, ends dropped) and
    how many lines the span has in the file. OSError when the file cannot be read."""
    last = max(line, end_line or line)
    kept: list[str] = []
    total = 0
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if n < line:
                continue
            if n > last:
                break
            total += 1
            if len(kept) < most:
                kept.append(raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape"))
    return kept, total


def show(hit: Hit, cwd: str) -> int:
    from rq_engine.search.lines import location

    try:
        lines, total = source_span(hit.abspath, hit.line, hit.end_line, SHOW_MAX_LINES)
    except OSError as e:
        raise RqError(f"cannot read {hit.path}: {e.strerror or e}", ExitCode.IOERR) from e
    out = sys.stdout
    header = location(hit, cwd)
    if out.isatty() and "NO_COLOR" not in os.environ:
        header = f"{_CYAN}{header}{_RESET}"
    out.write(header + "\n" + "".join(visible(t, tabs=True) + "\n" for t in lines))
    out.flush()
    if total > len(lines):
        last = hit.line + total - 1
        print(
            f"rq: showing {len(lines)} of {total} lines"
            f" ({location(hit, cwd)}-{last}; rq --open shows them all)",
            file=sys.stderr,
        )
    return int(ExitCode.OK)


def web(hit: Hit) -> int:
    from rq_engine.core.forge import NoForge, web_url

    try:
        url = web_url(hit.root, hit.path, hit.line, hit.end_line)
    except NoForge as e:
        raise RqError(str(e), ExitCode.USAGE) from e
    print(visible(url))
    return int(ExitCode.OK)
