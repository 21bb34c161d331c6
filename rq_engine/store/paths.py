"""Where rq keeps its files: `$RQ_HOME/index.db` and the disposable `$RQ_CACHE`."""

from __future__ import annotations

import os
from pathlib import Path


def rq_home() -> Path:
    env = os.environ.get("RQ_HOME")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(xdg) / "rq"


def rq_cache() -> Path:
    env = os.environ.get("RQ_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "rq"


def index_db_path() -> Path:
    return rq_home() / "index.db"
