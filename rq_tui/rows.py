"""The result list's rows as cells: column widths, paths cut from the left, matched letters.

Pure functions of the hits and the list's width (rq_tui.results draws them): a row
is `[mark] [repo]  path:line  kind  qualified`, each cell a (text, role) pair whose
role names the component class that colours it.
"""

from __future__ import annotations

from rq_engine.core.escape import visible
from rq_engine.search.render import matched_letters
from rq_engine.search.types import Hit
from rq_tui.text_results import TextHit

Cell = tuple[str, str]  # (text, role): role is a component class suffix, "" for plain
GUTTER = 2  # the mark column: "┃ " on a marked row (fzf's marker), blank otherwise
MARK = "┃ "
# The path column never shrinks below this (about "…/models/query.py:123"), or a third
# of the row when that is less; past that the name is shortened from the left, its
# last segment (the matched one) kept.
MIN_PATH = 22
MAX_REPO = 20  # the repository column (all repos), shortened from the left past this
SEP = "  "


def shorten_left(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut on the left: `…/db/models/query.py:12`.

    The cut lands on a `/` when one is in reach, so a path keeps whole segments."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = text[len(text) - (width - 1) :]
    slash = tail.find("/")
    if 0 < slash < len(tail) - 1 and "/" not in tail[:1]:
        tail = tail[slash:]
    return "…" + tail


def column_widths(
    locs: list[str], kinds: list[str], names: list[str], repos: list[str], width: int
) -> tuple[int, int, int, int]:
    """(repo, path, kind, name) column widths for a list `width` cells wide.

    The qualified name is what a row is for: the path gets what the names leave,
    down to MIN_PATH, and is shortened from the left; columns always line up."""
    repo_w = min(max((len(r) for r in repos), default=0), MAX_REPO)
    kind_w = max((len(k) for k in kinds), default=0)
    loc_w = max((len(p) for p in locs), default=0)
    name_w = max((len(n) for n in names), default=0)
    fixed = GUTTER + (repo_w + len(SEP) if repos else 0) + len(SEP) + kind_w + len(SEP)
    room = max(width - fixed, 0)
    # (in a list squeezed by the explain pane, the path's floor drops to a third)
    path_w = min(loc_w, max(min(MIN_PATH, room // 3), room - name_w))
    return repo_w, path_w, kind_w, max(room - path_w, 1)


def row_cells(
    hit: Hit,
    loc: str,
    widths: tuple[int, int, int, int],
    repo: str | None,
    marked: bool,
) -> list[Cell]:
    """The cells of one row: `[mark] [repo]  path:line  kind  qualified` with the matched
    letters marked; a text result adds `in file > Outer` (its chain), muted, after its
    name (as `rq --text` prints it; where the list is narrow, the line's end cuts it). `loc` and `repo` come shown (visible); the name's control characters
    are escaped here, letter by letter, so the marks stay on their letters. (Segments are
    written as they are: an ESC in one would reach the terminal.)"""
    repo_w, path_w, kind_w, name_w = widths
    cells: list[Cell] = [(MARK, "mark") if marked else (" " * GUTTER, "")]
    if repo is not None:
        cells += [(shorten_left(repo, repo_w).ljust(repo_w), "repo"), (SEP, "")]
    kind = visible(hit.kind)
    cells += [(shorten_left(loc, path_w).ljust(path_w), "path"), (SEP, "")]
    cells += [(kind.ljust(kind_w), "kind"), (SEP, "")]
    letters = matched_letters(hit)
    shown = sum(len(t) for t, _ in letters)
    if shown > name_w:  # keep the tail (the name itself, where the matches are)
        drop, cut = shown - (name_w - 1), 0
        while letters and cut < drop:
            cut += len(letters.pop(0)[0])
        cells.append(("…", "name"))
    run, run_marked = "", False
    for text, m in letters:
        if run and m != run_marked:
            cells.append((run, "match" if run_marked else "name"))
            run = ""
        run, run_marked = run + text, m
    if run:
        cells.append((run, "match" if run_marked else "name"))
    if isinstance(hit, TextHit) and hit.chain:
        cells.append((SEP + "in " + visible(hit.chain_text), "muted"))
    return cells
