"""Query history and recent picks, kept under $RQ_HOME: recall with alt-up/down, an empty query that helps.

Stdlib only. Both files are small, bounded text files rewritten whole on
accept (write to a temporary file, then rename: a killed picker leaves the old
file, never half of one):

- `$RQ_HOME/history`: accepted queries, one a line, oldest first, at most
  MAX_QUERIES (fzf's --history-size default). A repeated query moves to the end.
- `$RQ_HOME/picks`: recent picks, one JSON object a line, newest last, at most
  MAX_PICKS. They feed the empty-query list only, never the ranking of a typed
  query.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from rq_engine.search.types import Hit, Score

MAX_QUERIES = 1000
MAX_PICKS = 200
RECENT_SHOWN = 20  # recent picks listed on an empty query
_PICK_FIELDS = ("root", "path", "line", "end_line", "name", "qualified", "kind", "language")


def _home(env_home: Path | None) -> Path:
    if env_home is not None:
        return env_home
    from rq_engine.store.paths import rq_home

    return rq_home()


def _write(path: Path, lines: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(tmp, path)


def _read(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


class QueryHistory:
    """The accepted queries and a cursor into them (prev / next, as in a shell)."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = _home(home) / "history"
        self.entries = [q for q in _read(self.path) if q.strip()]
        self.pos = len(self.entries)  # == len: not browsing; the draft is the query
        self.draft = ""

    def prev(self, current: str) -> str | None:
        """The query before the one shown (None at the oldest)."""
        if self.pos == len(self.entries):
            self.draft = current
        if self.pos == 0:
            return None
        self.pos -= 1
        return self.entries[self.pos]

    def next(self) -> str | None:
        """The query after the one shown; past the newest, the draft typed before."""
        if self.pos >= len(self.entries):
            return None
        self.pos += 1
        return self.draft if self.pos == len(self.entries) else self.entries[self.pos]

    def add(self, query: str) -> None:
        query = query.strip()
        if not query or "\n" in query:
            return
        entries = [q for q in _read(self.path) if q.strip() and q != query] + [query]
        try:
            _write(self.path, entries[-MAX_QUERIES:])
        except OSError:
            pass  # history is a convenience: a read-only home never fails a pick


class RecentPicks:
    def __init__(self, home: Path | None = None) -> None:
        self.path = _home(home) / "picks"

    def add(self, hits: Iterable[Hit]) -> None:
        new = [json.dumps({f: getattr(h, f) for f in _PICK_FIELDS} | {"repository": h.repository})
               for h in hits]  # fmt: skip
        keep = [line for line in _read(self.path) if line not in new]
        try:
            _write(self.path, (keep + new)[-MAX_PICKS:])
        except OSError:
            pass

    def recent(self, cwd: str | None, limit: int = RECENT_SHOWN) -> list[Hit]:
        """The newest picks first: those in the checkout holding `cwd` (None: in every
        repository) whose file still exists."""
        out: list[Hit] = []
        for line in reversed(_read(self.path)):
            try:
                d = json.loads(line)
                root = str(d["root"]).rstrip("/")
                if cwd is not None and cwd != root and not cwd.startswith(root + "/"):
                    continue
                hit = Hit(
                    **{f: d[f] for f in _PICK_FIELDS},
                    repository=d["repository"],
                    score=Score(0.0, (("recent pick", 0.0),)),
                    layer="recent",
                )
            except (ValueError, KeyError, TypeError):
                continue  # a line from a newer rq, or a damaged one
            if os.path.isfile(hit.abspath):
                out.append(hit)
            if len(out) >= limit:
                break
        return out
