"""The one Hit → JSON-object conversion every face shares (CLI --json/--ndjson, picker, MCP).

Stdlib only.
"""

from __future__ import annotations

import os

from rq_engine.core.escape import visible
from rq_engine.search.types import Hit


def display_path(hit: Hit, cwd: str) -> str:
    """The hit's file relative to `cwd` (absolute when on another drive/root)."""
    try:
        return os.path.relpath(hit.abspath, cwd)
    except ValueError:
        return hit.abspath


def matched_letters(hit: Hit) -> list[tuple[str, bool]]:
    """The hit's qualified name letter by letter, (shown text, matched) each: the
    letters of its name (the tail of `qualified`) the query matched, as every face
    marks them. A control character comes as its visible escape (`visible`), one
    unit, so a mark stays on its letter and an ESC in a name reaches no terminal."""
    qualified = hit.qualified or hit.name
    offset = len(qualified) - len(hit.name) if qualified.endswith(hit.name) else -1
    marks = {offset + p for p in hit.positions if 0 <= p < len(hit.name)} if offset >= 0 else ()
    return [(ch if ch.isprintable() else visible(ch), i in marks) for i, ch in enumerate(qualified)]


def matched_runs(hit: Hit) -> list[tuple[str, bool]]:
    """matched_letters joined into runs of the same mark: what a face styles."""
    runs: list[tuple[str, bool]] = []
    for text, m in matched_letters(hit):
        if runs and runs[-1][1] == m:
            runs[-1] = (runs[-1][0] + text, m)
        else:
            runs.append((text, m))
    return runs


def hit_to_json(hit: Hit, cwd: str, explain: bool = False) -> dict[str, object]:
    """{path, line, end_line, name, qualified, kind, language, repository, score[, explain]}."""
    out: dict[str, object] = {
        "path": display_path(hit, cwd),
        "line": hit.line,
        "end_line": hit.end_line,
        "name": hit.name,
        "qualified": hit.qualified,
        "kind": hit.kind,
        "language": hit.language,
        "repository": hit.repository,
        "score": round(hit.score.total, 2),
    }
    if explain:
        out["explain"] = [{"feature": f, "value": round(v, 2)} for f, v in hit.score.parts]
    return out
