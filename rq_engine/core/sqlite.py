"""SQLite for the engine: the `_sqlite3` extension itself, not the `sqlite3` package.

The package is `_sqlite3` plus the DB-API module, which imports `datetime`,
`collections.abc` (and through it `collections`, `operator`, `keyword`, ...) to
register date adapters rq never uses: ~2 ms of a ~40 ms `rq -q`. The classes are
the extension's either way, so a connection opened here is a `sqlite3.Connection`
to code that imports the package (the picker, tests), and its errors are
`sqlite3.Error`. Modules on the one-shot path, and on the index path a query takes
to reindex an edited file, write `from rq_engine.core.sqlite import sqlite3`; the
rest may import the package.
"""

from __future__ import annotations

import _sqlite3 as sqlite3

__all__ = ["sqlite3"]
