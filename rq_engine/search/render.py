"""The one Hit → JSON-object conversion every face shares (CLI --json/--ndjson, picker, MCP).

Stdlib only.
"""

from __future__ import annotations

import os

from rq_engine.search.types import Hit


def display_path(hit: Hit, cwd: str) -> str:
    """The hit's file relative to `cwd` (absolute when on another drive/root)."""
    try:
        return os.path.relpath(hit.abspath, cwd)
    except ValueError:
        return hit.abspath


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
