"""Warming: the time-boxed ways into run_index, the warmer's job, and handing it to a detached child.

No daemon (seed, "No daemon"): a face answers first, then `hand_off` starts
`rq --warm ROOT` in its own session with null stdio, niced, and exits. The
child sweeps for at most RQ_WARM_BUDGET_MS; on a complete repository it first
asks git whether anything moved (index/fresh.py) and usually just records the
verdict. One warmer per repository (index/lock.py). RQ_WARM_DETACH=0 does the
same work in the calling process (tests, debugging).

The indexer is imported only when there is something to index: a hit that
hands off pays a posix_spawn (~1 ms), not an import of the parse path.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from rq_engine.core.cancel import CancelToken
from rq_engine.core.env import env_ms
from rq_engine.core.identity import Checkout
from rq_engine.core.sqlite import sqlite3
from rq_engine.index import dirrecord, fresh, gitstate, lock, owner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path  # (pathlib costs ~3 ms on the hit that hands off)

    from rq_engine.index.stats import IndexProgress, IndexStats

WARM_BUDGET_MS = 30_000  # RQ_WARM_BUDGET_MS: one detached warmer's sweep, at most
WARM_NICE = 10  # the detached child lowers its priority this much (its workers 10 more)

_children: list[int] = []  # warmers this process started, not yet reaped


def index_budgeted(
    conn: sqlite3.Connection, checkout: Checkout, budget_ms: int, **kw: object
) -> IndexStats:
    """Opportunistic and time-boxed: one run_index pass that stops `budget_ms` from now
    (active files first when given), committing as it goes."""
    from rq_engine.index.indexer import run_index

    return run_index(conn, checkout, deadline=time.monotonic() + budget_ms / 1000, **kw)  # type: ignore[arg-type]


def index_budgeted_cancellable(
    conn: sqlite3.Connection,
    checkout: Checkout,
    budget_ms: int | None,
    cancel: CancelToken,
    **kw: object,
) -> IndexStats:
    """index_budgeted carrying the abort flag (Ctrl-C, the wait budget, an early answer)
    down into the pass, which stops within a batch and keeps what it committed.
    `budget_ms` None: no deadline (a person at a terminal; Ctrl-C is the escape)."""
    from rq_engine.index.indexer import run_index

    deadline = None if budget_ms is None else time.monotonic() + budget_ms / 1000
    return run_index(conn, checkout, deadline=deadline, cancel=cancel, **kw)  # type: ignore[arg-type]


def catch_up(
    conn: sqlite3.Connection,
    checkout: Checkout,
    moved: fresh.Moved,
    *,
    budget_ms: int | None,
    cancel: CancelToken | None = None,
    leaf: str | None = None,
    hint: str | None = None,
    progress: Callable[[IndexProgress], None] | None = None,
    workers: int | None = None,
) -> IndexStats:
    """Reindex what a check found moved: the named files alone when git could name them
    (coverage stays as it was), else — or when there are many (a checkout, a pull) —
    a full pass with those files first, which takes the bulk path."""
    from rq_engine.index.indexer import COLD_MIN_FILES

    tok = cancel or CancelToken()
    if moved.walk or len(moved.paths) >= COLD_MIN_FILES:
        which: dict[str, object] = {"active_files": moved.paths}
    else:
        which = {"files": moved.paths}
    return index_budgeted_cancellable(
        conn,
        checkout,
        budget_ms,
        tok,
        leaf=leaf,
        hint=hint,
        progress=progress,
        workers=workers,
        **which,
    )


def _listed_dirs(checkout: Checkout) -> dict[str, int] | None:
    """The directory record a miss's quick check needs, from one `git ls-files` (the
    warmer has the time; a search does not)."""
    from rq_engine.index import walker

    if checkout.git_dir is None:
        return None
    w = walker.walk(checkout.root, git=True)
    if w.via != "git":
        return None
    rules = dirrecord.rule_files(w.paths, checkout.git_dir)
    return dirrecord.dir_keys(checkout.root, dirrecord.dirs_of(w.paths), w.started_ns, files=rules)


def active_files(
    checkout: Checkout, status: gitstate.Status | None, timeout: float = gitstate.GIT_TIMEOUT
) -> list[str]:
    """What a warm parses first: the branch's files against the trunk, then the dirty ones."""
    files = gitstate.branch_files(checkout.root, checkout.git_dir, checkout.branch, timeout)
    if status is not None:
        files += status.dirty
    return list(dict.fromkeys(files))


def warm(
    conn: sqlite3.Connection,
    checkout: Checkout,
    *,
    budget_ms: int,
    cancel: CancelToken | None = None,
    workers: int | None = None,
    progress: Callable[[IndexProgress], None] | None = None,
) -> IndexStats | None:
    """The warmer's job; the caller holds the warm lock. A complete repository: ask
    whether anything moved, reindex that, record the verdict. Otherwise: sweep, active
    files first, until coverage completes or the budget runs out. None when nothing
    needed indexing."""
    from rq_engine.index import crashpoints, fts
    from rq_engine.store import derived, writes
    from rq_engine.store.txn import writable

    if not writable(conn):
        return None  # a read-only store is answered as it is
    fts.repair(conn)  # a warmer killed mid bulk pass: its triggers come back first
    derived.drain(conn)  # …and the names it queued but never drained
    rid = writes.repository_id(conn, checkout.identity)
    if rid is not None:
        with writes.transaction(conn):
            # a moved repository forgets its old path (and what was known of it)
            fresh.forget(conn, writes.prune_checkouts(conn, rid))
    if rid is not None and writes.coverage_status(conn, rid) == "complete":
        moved = fresh.check(conn, checkout.root, checkout.git_dir, rid)
        if not moved.moved:
            dirs = moved.dirs
            if dirs is None and not dirrecord.has_dirs(conn, str(checkout.root)):
                dirs = _listed_dirs(checkout)  # (an index made before the record existed)
            crashpoints.phase("verdict")
            fresh.settle(
                conn,
                checkout.root,
                checkout.git_dir,
                rid,
                moved.stamp,
                moved.held,
                reindexed=False,
                dirs=dirs,
            )
            return None
        stats = catch_up(
            conn,
            checkout,
            moved,
            budget_ms=budget_ms,
            cancel=cancel,
            workers=workers,
            progress=progress,
        )
    else:
        stamp = gitstate.stamp(checkout.git_dir)
        status = gitstate.status(checkout.root) if checkout.git_dir is not None else None
        moved = fresh.Moved([], True, stamp, fresh.held_keys(checkout.root, status))
        stats = index_budgeted_cancellable(
            conn,
            checkout,
            budget_ms,
            cancel or CancelToken(),
            active_files=active_files(checkout, status),
            workers=workers,
            progress=progress,
        )
    if stats.complete:
        changed = bool(stats.files_indexed or stats.files_deleted)
        dirs = stats.dirs if stats.dirs is not None else moved.dirs
        crashpoints.phase("verdict")
        fresh.settle(
            conn,
            checkout.root,
            checkout.git_dir,
            stats.repository_id,
            moved.stamp,
            moved.held,
            reindexed=changed,
            dirs=dirs,
        )
    return stats


def until_complete(
    conn: sqlite3.Connection,
    checkout: Checkout,
    *,
    budget_ms: int | None,
    cancel: CancelToken | None = None,
    poll: float = 0.1,
) -> str:
    """Warm a repository until its coverage is complete (a text query ranks the whole
    graph, so it has no early answer): here, holding the warm lock, or by watching the
    warmer that holds it. Stops at the budget or the cancel token; the coverage state."""
    from rq_engine.store import writes
    from rq_engine.store.txn import writable

    tok = cancel or CancelToken()
    if not writable(conn):  # a read-only store stays as it is: nobody could complete it
        rid = writes.repository_id(conn, checkout.identity)
        return writes.coverage_status(conn, rid) if rid is not None else "never"
    deadline = None if budget_ms is None else time.monotonic() + budget_ms / 1000
    me = owner.me()
    if lock.claim(conn, checkout.identity, me):
        try:
            left = _left(deadline)
            warm(conn, checkout, budget_ms=left if left is not None else 10**9, cancel=tok)
        finally:
            lock.release(conn, checkout.identity, me)
    while True:
        rid = writes.repository_id(conn, checkout.identity)
        state = writes.coverage_status(conn, rid) if rid is not None else "never"
        if state == "complete" or tok.cancelled:
            return state
        if deadline is not None and time.monotonic() >= deadline:
            return state
        if lock.holder(conn, checkout.identity) is None:
            return until_complete(
                conn, checkout, budget_ms=_left(deadline), cancel=tok, poll=poll
            )  # the warmer we watched stopped short (its own budget): carry on here
        tok.wait(poll)


def _left(deadline: float | None) -> int | None:
    return None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))


def warm_budget_ms() -> int:
    return env_ms("RQ_WARM_BUDGET_MS", WARM_BUDGET_MS)


def detached() -> bool:
    return os.environ.get("RQ_WARM_DETACH", "1").strip() != "0"


def hand_off(conn: sqlite3.Connection, checkout: Checkout) -> int | None:
    """Leave what is left of warming to a detached `rq --warm ROOT` (after the answer is
    out). Nothing is started while another warmer lives. With RQ_WARM_DETACH=0 the
    work is done here, now. The child's pid, or None."""
    if not detached():
        who = owner.me()
        if lock.claim(conn, checkout.identity, who):
            try:
                warm(conn, checkout, budget_ms=warm_budget_ms())
            finally:
                lock.release(conn, checkout.identity, who)
        return None
    gd = checkout.git_dir
    return hand_off_detached(
        conn, os.fspath(checkout.root), checkout.identity, os.fspath(gd) if gd else None
    )


def hand_off_detached(
    conn: sqlite3.Connection, root: str, identity: str, git_dir: str | None
) -> int | None:
    """`hand_off` to a detached child, from plain strings: the hit that hands off builds
    no Checkout (its pathlib costs ~3 ms of a ~35 ms `rq -q`)."""
    reap()  # (a warmer of ours that exited must not look like a live holder)
    if lock.holder(conn, identity) is not None:
        return None  # one read: the common case in a burst of queries
    return lock.claim_for(
        conn,
        identity,
        lambda: _spawn(root),
        lambda: _needs(conn, identity, root, git_dir),
    )


def needs_warming(conn: sqlite3.Connection, checkout: Checkout) -> bool:
    """Not complete, or complete without a fresh verdict (no fork: one read and a stamp)."""
    return _needs(conn, checkout.identity, checkout.root, checkout.git_dir)


def _needs(
    conn: sqlite3.Connection,
    identity: str,
    root: str | os.PathLike[str],
    git_dir: str | os.PathLike[str] | None,
) -> bool:
    row = conn.execute(
        "SELECT c.status FROM coverage c JOIN repositories r ON r.id = c.repository_id"
        " WHERE r.identity = ? AND c.scope = 'full'",
        (identity,),
    ).fetchone()
    if row is None or row[0] != "complete":
        return True
    return not fresh.fresh(conn, root, git_dir)


def _spawn(root: str | os.PathLike[str]) -> int:
    """`python -P -m rq_engine --warm ROOT`, detached (spawn_module)."""
    return spawn_module("rq_engine", "--warm", os.fspath(root))


def spawn_module(module: str, *args: str) -> int:
    """`python -P -m MODULE ARGS`, detached, running this very rq. The child would
    otherwise find `rq_engine` on its own path: a checkout in the working directory
    (`-m` puts it first; `-P` leaves it out), or the installed rq when this one was
    started from a source tree; a warmer of another version migrates or refuses the
    store under this one."""
    # (and as this one was started: `-s` or `-E` left out would let a user site or
    # PYTHONPATH this process ignored shadow it)
    flags = [
        "-P",
        *(["-s"] if sys.flags.no_user_site else []),
        *(["-E"] if sys.flags.ignore_environment else []),
    ]
    return spawn_detached([sys.executable, *flags, "-m", module, *args], _same_rq_env())


def _same_rq_env() -> dict[str, str]:
    """This process's environment, with the directory holding this `rq_engine` first
    on PYTHONPATH unless it is a site directory (a regular install: the child finds
    it there, and site-packages before the standard library could shadow it)."""
    import site

    import rq_engine

    env = dict(os.environ)
    home = os.path.dirname(os.path.dirname(os.path.abspath(rq_engine.__file__)))
    sites = {os.path.abspath(d) for d in getattr(site, "getsitepackages", list)()}
    if site.ENABLE_USER_SITE:
        sites.add(os.path.abspath(site.getusersitepackages()))
    if home in sites:
        return env
    given = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != home]
    env["PYTHONPATH"] = os.pathsep.join([home, *given])
    return env


def spawn_detached(argv: list[str], env: dict[str, str] | None = None) -> int:
    """`argv` in its own session, stdio on /dev/null and no other descriptor
    inherited: a pipe the caller's shell left open on fd 5 would otherwise keep that
    pipe's reader waiting for the child. Python opens its own descriptors
    close-on-exec; those it inherited are marked so here (this process execs nothing
    else that needs them). posix_spawn, not subprocess: ~4 ms less on the hit that
    hands off, and safe from the picker's threads."""
    _no_inherited_fds()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawn(
            argv[0],
            argv,
            dict(os.environ) if env is None else env,
            file_actions=[(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)],
            setsid=True,
        )
    finally:
        os.close(null)
    _children.append(pid)
    return pid


def _no_inherited_fds() -> None:
    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in fds:
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass  # (the listing's own descriptor, closed by now)


def reap() -> None:
    """Collect warmers this (long-lived) process started that have exited."""
    for pid in list(_children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _children.remove(pid)


def run_child(root: Path) -> int:
    """`rq --warm ROOT`: take the lock (a search may have claimed it for us), warm, let go."""
    from rq_engine.core.identity import checkout_for
    from rq_engine.store.db import connect

    try:
        os.nice(WARM_NICE)
    except OSError:
        pass
    from rq_engine.index.indexer import WRITER_BUSY_MS

    checkout = checkout_for(root)
    conn = connect(busy_ms=WRITER_BUSY_MS)
    who = owner.me()
    try:
        if not lock.claim(conn, checkout.identity, who):
            return 0  # another warmer is on it
        try:
            warm(conn, checkout, budget_ms=warm_budget_ms())
        finally:
            lock.release(conn, checkout.identity, who)
    finally:
        conn.close()
    return 0
