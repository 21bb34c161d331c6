"""Where rq keeps its files: `$RQ_HOME/index.db` and the disposable `$RQ_CACHE`.

str forms for the search hot path (pathlib costs ~5 ms to import there).
"""

from __future__ import annotations

import os
from stat import S_ISDIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def home_dir() -> str:
    env = os.environ.get("RQ_HOME")
    if env:
        return env
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(xdg, "rq")


def home_problem() -> str | None:
    """Why the index directory cannot hold an index — it exists and is not a directory
    (`RQ_HOME=~/.bashrc`) — or None. One stat (two for a path that is not there):
    every command asks this first, so a misconfigured RQ_HOME is one clear error
    everywhere, not "no index" here and "File exists" there."""
    home = home_dir()
    try:
        mode = os.stat(home).st_mode
    except FileNotFoundError:
        # absent, or a dangling symlink (no directory); lstat tells them apart, and
        # sees a directory another rq made since the stat (parallel first runs)
        try:
            mode = os.lstat(home).st_mode
        except OSError:
            return None  # absent: the index creates it
    except OSError:
        return None  # (a parent that is a file makes the open say "Not a directory")
    if S_ISDIR(mode):
        return None
    what = "RQ_HOME" if os.environ.get("RQ_HOME") else "the index directory"
    return f"{what} {home} is not a directory"


def rq_home() -> Path:
    from pathlib import Path

    return Path(home_dir())


def rq_cache() -> Path:
    from pathlib import Path

    env = os.environ.get("RQ_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "rq"


def text_cache_dir(store_uuid: str, repository_id: int) -> Path:
    """One repository's text-ranker generations (rq_engine/text/cache/store.py)."""
    return rq_cache() / "text" / f"{store_uuid}-{repository_id}"


def index_db_file() -> str:
    return os.path.join(home_dir(), "index.db")


def index_db_path() -> Path:
    from pathlib import Path

    return Path(index_db_file())
