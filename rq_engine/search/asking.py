"""When a query asks git what moved: before its search, or after it (index/asking.py is how).

A miss on a complete index, or outside the recheck window an answer without
the exact name, is definitive only once git has said what moved since the index
was settled (search/blocking.py's `caught_up` reads the answer and reindexes).
`ask_now` starts that question after the search. `ask_early` starts it before,
when the answer is known to need it: outside the window, for a query whose name
the index holds no definition of, so git runs beside the search (a miss's ~8 ms
of git beside its fuzzy and typo layers) instead of after it.

Loaded outside the recheck window and on a miss only: a hit inside the window
forks nothing and never imports it. index/asking.py itself is imported only when
git is asked.
"""

from __future__ import annotations

from rq_engine.core.identity import git_dir
from rq_engine.core.query import parse
from rq_engine.core.sqlite import sqlite3
from rq_engine.search import retrieval as rt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.index.asking import Asking, NoGit
    from rq_engine.search.pipeline import Searcher


def ask_early(conn: sqlite3.Connection, s: Searcher, query: str) -> Asking | NoGit | None:
    """git's question, started before `s` searches when no answer to `query` can have
    the exact name: the index holds no definition of it. Unscoped symbol queries only:
    their exact layer reads the definitions named as the leaf, and nothing else (a
    scope can make a constructor an exact answer). None (nothing started) otherwise:
    a query with the exact name forks nothing still."""
    q = parse(query)
    if not q.leaf or q.scope or q.looks_like_path or s.repo_id is None:
        return None
    if rt.defines(conn, s.repo_id, q.leaf_lower):
        return None
    return ask_now(conn, s.root)


def ask_now(conn: sqlite3.Connection, root: str) -> Asking | NoGit:
    """git's check of the checkout at `root`, started (index/asking.py: a miss's module)."""
    from rq_engine.index.asking import Asking

    return Asking.start(conn, root, git_dir(root))
