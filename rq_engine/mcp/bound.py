"""Bounded replies: the character budget every MCP reply fits in, and how a reply is cut to it.

A reply is measured as the compact JSON the server sends (the text block
carries exactly that). What does not fit is cut from the end of its list —
the lowest-ranked results, the deepest outline levels, the last source lines
— and the reply says so (`truncated`, `omitted`, a note). A cut never leaves
an answer empty: the first item is always kept, so a limit or a budget is
never mistaken for "no results". Stdlib only.
"""

from __future__ import annotations

import json
import os
from typing import Any

# ~5k tokens: room for 20 results with their breakdowns, small beside a context window.
DEFAULT_MAX_CHARS = 20_000
# Below this a reply could not hold one result with its envelope.
MIN_MAX_CHARS = 1_000
# What a note, a count and the flags may add after measuring.
SLACK = 240


class ToolError(Exception):
    """A call the engine refuses, with a one-line message for the model (bad arguments,
    a path outside the repository, an unreadable file or index)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def max_chars() -> int:
    """RQ_MCP_MAX_CHARS: the budget of one reply, in characters of its JSON."""
    raw = os.environ.get("RQ_MCP_MAX_CHARS", "").strip()
    try:
        return max(MIN_MAX_CHARS, int(raw)) if raw else DEFAULT_MAX_CHARS
    except ValueError:
        return DEFAULT_MAX_CHARS


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def size(obj: object) -> int:
    return len(dumps(obj))


def envelope(note: str = "") -> dict[str, Any]:
    """The budget fields every reply carries, untouched."""
    return {"truncated": False, "omitted": 0, "note": note}


def unread(not_read: tuple[tuple[str, int], ...], outcome: str) -> dict[str, Any]:
    """What a miss says of the files rq does not read, as `rq -q --json` carries it:
    `not_read` ({"Kotlin": 12}) when there are some, and `nothing_readable` when the
    repository holds no file rq reads (outcome `nothing_readable`, the CLI's exit 3)."""
    facts: dict[str, Any] = {"not_read": dict(not_read)} if not_read else {}
    if outcome == "nothing_readable":
        facts["nothing_readable"] = True
    return facts


def add_note(reply: dict[str, Any], note: str) -> None:
    reply["note"] = f"{reply['note']} {note}".strip() if reply.get("note") else note


def fit_list(reply: dict[str, Any], key: str, budget: int, what: str = "results") -> None:
    """Cut `reply[key]` from its end until the reply fits `budget` (keeping one item)."""
    items: list[Any] = reply[key]
    if size(reply) <= budget:
        return
    reply[key] = []
    room = budget - size(reply) - SLACK
    kept = 0
    for item in items:
        room -= size(item) + 1
        if room < 0 and kept:
            break
        kept += 1
    reply[key] = items[:kept]
    _mark(reply, len(items) - kept, what, budget)


def fit_tree(reply: dict[str, Any], key: str, budget: int) -> None:
    """Fit an outline (nodes with `children`) by keeping whole levels breadth-first: every
    top-level node first, then their children, and so on while the budget lasts. A node
    whose children were cut says how many (`children_omitted`)."""
    roots: list[dict[str, Any]] = reply[key]
    if size(reply) <= budget:
        return
    reply[key] = []
    room = budget - size(reply) - SLACK
    keep: set[int] = set()
    level = list(roots)
    full = False
    while level and not full:
        nxt: list[dict[str, Any]] = []
        for node in level:
            flat = {k: v for k, v in node.items() if k != "children"}
            room -= size(flat) + len(',"children":[],"children_omitted":0') + 1
            if room < 0 and keep:
                full = True
                break
            keep.add(id(node))
            nxt.extend(node.get("children", ()))
        level = nxt
    omitted = 0

    def prune(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        nonlocal omitted
        out = []
        for node in nodes:
            if id(node) not in keep:
                omitted += 1 + count(node.get("children", ()))
                continue
            copy = {k: v for k, v in node.items() if k != "children"}
            children = node.get("children", [])
            if children:
                kids = prune(children)
                if kids:
                    copy["children"] = kids
                if len(kids) < len(children):
                    copy["children_omitted"] = len(children) - len(kids)
            out.append(copy)
        return out

    reply[key] = prune(roots)
    _mark(reply, omitted, "definitions (the deepest levels)", budget)


def count(nodes: Any) -> int:
    return sum(1 + count(n.get("children", ())) for n in nodes)


def _mark(reply: dict[str, Any], omitted: int, what: str, budget: int) -> None:
    if omitted <= 0:
        return
    reply["truncated"] = True
    reply["omitted"] = reply.get("omitted", 0) + omitted
    add_note(reply, f"{omitted} {what} cut to fit {budget} characters.")


def cut_text(lines: list[str], room: int) -> tuple[list[str], bool]:
    """The first lines whose JSON-escaped length fits `room` (the first line itself cut
    when even it does not fit); True when anything was left out."""
    out: list[str] = []
    for line in lines:
        cost = size(line) - 2  # (its quotes)
        if cost > room:
            if not out:
                out.append(_prefix(line, room))
            return out, True
        room -= cost
        out.append(line)
    return out, False


def _prefix(line: str, room: int) -> str:
    lo, hi = 0, len(line)
    while lo < hi:  # the longest prefix whose escaped form fits
        mid = (lo + hi + 1) // 2
        if size(line[:mid]) - 2 <= room:
            lo = mid
        else:
            hi = mid - 1
    return line[:lo]
