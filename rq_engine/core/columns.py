"""The stored facts of a definition, declared once. Stdlib only, no imports: the
`rq -q` hot path reads it.

Every definition is stored as the six facts of m001's `symbols` table that each
plugin's Symbol carries — BASE, in this order. A fact added since (one a new
scoring feature needs: a deprecation mark, a doc comment's presence) is one
`Column` in ADDED, and everything between a plugin and the scorer follows from
that line:

- `core/model.Symbol` gains the attribute, set to `default` until a plugin sets it;
- the indexer's row tuples, the writer's INSERT and the search's SELECT carry it
  after BASE (index/parse.py, store/writes.py, search/retrieval.py);
- the ranked `Row` and the scorer's `Candidate` hold it (core/scoring);
- store/migrations.py adds the column under the step named `since` and makes the
  next pass re-read the files of `reread` (an index built before has the default
  in every row until its files are read again).

So a feature on a new stored fact touches three engine files: this one, its
function in core/scoring/features.py (appended to COLUMN_FEATURES there) and its
weight in core/scoring/weights.py — plus the plugins that set it.
docs/ARCHITECTURE.md ("Adding a scoring feature") walks through one.
"""

from __future__ import annotations

#: m001's facts of a definition, in the order every row tuple holds them
BASE: tuple[str, ...] = ("name", "kind", "visibility", "line", "end_line", "parent")

#: a definition as the indexer hands it to the writer: BASE's facts, then ADDED's
SymbolRow = tuple[str, str, str, int, int | None, str | None, *tuple[object, ...]]


class Column:
    """One stored fact of a definition beyond BASE.

    `sql` is its SQLite type and constraint as `ALTER TABLE ... ADD COLUMN` takes it
    (`"INTEGER NOT NULL DEFAULT 0"`); `default` the value a Symbol, Row and Candidate
    hold until set, and must match the SQL default. Values are None, int, float or
    str: rows cross from the parse workers as marshal blobs. `since` names the
    migration that adds it (`m014_deprecated`: numbered after the last step in
    store/migrations.py). `reread` names the languages whose files are parsed again
    so an existing index gets the fact (empty: every file rq reads).
    """

    __slots__ = ("name", "sql", "default", "since", "reread")

    def __init__(
        self,
        name: str,
        sql: str,
        default: object,
        since: str,
        reread: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.sql = sql
        self.default = default
        self.since = since
        self.reread = reread

    def __repr__(self) -> str:
        return f"Column({self.name!r}, {self.sql!r}, {self.default!r}, {self.since!r})"


#: facts added after m001, in the order they were added (each one's migration
#: appends its column to the table, so rows hold them in this order after BASE)
ADDED: tuple[Column, ...] = ()


def added_names() -> tuple[str, ...]:
    """The names of ADDED, in order (read once where a class or statement is built)."""
    return tuple(c.name for c in ADDED)
