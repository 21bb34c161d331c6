"""The branch boost's file set: what a feature branch changed against its trunk, cached and budgeted.

On a feature branch, the files that differ from the trunk — committed since the
branch left it, plus uncommitted ones (staged, unstaged, untracked) — are what the
developer is working on (seed, "Scoring": branch). On the trunk, a detached HEAD,
a repository whose trunk rq cannot name, or outside git there is nothing to
boost and nothing is forked: that is decided from `.git/HEAD` and the trunk refs
read natively (index/gitstate.py, ~0.1 ms).

Asking git costs a shell and two gits (~6 ms in a small repository, ~40 ms on
Django, where `git status` walks the work tree for untracked files), more than a
search's whole budget. So the answer is cached under `$RQ_CACHE/branch/`, one
file per checkout and branch, written by the forked shell itself (an atomic
rename) and stamped with HEAD, the trunk's commit and `.git/index`'s mtime:

- the stamp matches and the file is younger than RECHECK_S: used as it is; nothing
  is forked (most queries);
- an older answer for the same branch (a commit, staging, or only time: an
  unstaged edit moves no stamp): used as it is, and a refresh starts in the
  background for the next query — nothing waits on it;
- no answer for this branch yet: the refresh starts and the search waits for it
  at most RQ_BRANCH_BUDGET_MS from the start of the search. Late, the search goes
  on without the boost (explained as `branch_skipped`) and the refresh, left
  running, lands for the next query: a slow git never holds an answer.

The git commands: `git diff --name-only -z --no-renames TRUNK...HEAD` (what the
branch committed since it left the trunk) and `git --no-optional-locks status`
(uncommitted, untracked included). Not `git diff HEAD`: it refreshes and rewrites
`.git/index`, which would move the freshness stamp of every later search (D16).

Stdlib + rq_engine.core and index/gitstate's native readers only (no subprocess:
~4 ms to import; posix_spawn as gitstate does).
"""

from __future__ import annotations

import os
import time

from rq_engine.core.env import env_ms
from rq_engine.core.identity import current_branch
from rq_engine.core.record import Record
from rq_engine.index.gitstate import parse_status, resolve_ref, trunk

# How long a search may wait for git when it has no answer for the branch at all
# (RQ_BRANCH_BUDGET_MS): a small repository's answer takes ~6 ms from the spawn, and
# the spawn happens as the search starts, so its first layer's reads overlap it.
BUDGET_MS = 10
# An answer this old is refreshed (in the background) even when its stamp still
# matches: an unstaged edit or a new file moves no stamp. The recheck window of a
# nothing-moved verdict (RQ_WARM_RECHECK_MS) has the same default, for the same reason.
RECHECK_S = 10.0
# A refresh started less than this long ago is left to finish rather than started again.
PENDING_S = 30.0

# A git that hangs is stopped after this long (s) where `timeout` exists (coreutils), so
# hung refreshes cannot pile up (one is started again after PENDING_S).
GIT_LIMIT_S = 20

# $1 root, $2 trunk commit, $3 temporary file, $4 cache file, $5 stamp. The stamp and a
# separator frame the two answers; a failure is recorded as such (\002) so it is not
# asked again until the stamp moves or RECHECK_S passes.
_SCRIPT = (
    f'T=; command -v timeout >/dev/null && T="timeout {GIT_LIMIT_S}"; '
    'printf \'%s\\000\' "$5" >"$3"'
    ' && $T git -C "$1" diff --name-only -z --no-renames "$2...HEAD" >>"$3"'
    " && printf '\\001\\000' >>\"$3\""
    ' && $T git -C "$1" --no-optional-locks status --porcelain=v1 -z --untracked-files=all'
    ' --ignore-submodules=all >>"$3"'
    ' && mv -f "$3" "$4"'
    ' || { printf \'%s\\000\\002\\000\' "$5" >"$3" && mv -f "$3" "$4"; }'
)


class BranchFiles(Record):
    """What the branch boost knows for one checkout. `state`: "off" (trunk, detached,
    no trunk known, not git: no boost and nothing to say), "on" (`files` and their
    `dirs`, repo-relative), "skipped" (not known in time or git failed: `note` says
    which)."""

    __slots__ = ("state", "files", "dirs", "note")
    state: str
    files: frozenset[str]
    dirs: frozenset[str]
    note: str

    def __init__(
        self,
        state: str,
        files: frozenset[str] = frozenset(),
        dirs: frozenset[str] = frozenset(),
        note: str = "",
    ) -> None:
        self.state = state
        self.files = files
        self.dirs = dirs
        self.note = note

    def mark(self, path: str) -> str:
        """The `Boosts.branch` fact for a file of this checkout."""
        if self.state == "on":
            if path in self.files:
                return "file"
            if path.rpartition("/")[0] in self.dirs:
                return "dir"
            return ""
        return "skipped" if self.state == "skipped" else ""


OFF = BranchFiles("off")


class _Job:
    """A refresh this process started: the shell's pid and the read end of its stdout
    (sh writes nothing there: end of file is its exit)."""

    __slots__ = ("pid", "fd", "deadline")

    def __init__(self, pid: int, fd: int, deadline: float) -> None:
        self.pid = pid
        self.fd = fd
        self.deadline = deadline

    def wait(self, until: float) -> bool:
        """True once the shell exited (reaped), waiting until `until` (monotonic) at most."""
        if self.fd < 0:
            return True
        import select

        left = max(0.0, until - time.monotonic())
        if not select.select([self.fd], [], [], left)[0]:
            return False
        os.close(self.fd)
        self.fd = -1
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        return True


# refreshes started by this process, by cache file (a picker or MCP server reaps them
# on a later query; a one-shot query leaves them to finish as orphans)
_jobs: dict[str, _Job] = {}
# parsed answers, by cache file: (mtime_ns, size) → (stamp, files or None when failed)
_parsed: dict[str, tuple[tuple[int, int], str, frozenset[str] | None]] = {}


class Probe:
    """The branch's files for one search: decided at once when no git is needed,
    else when first asked (`result`), waiting for a started refresh until `deadline`."""

    __slots__ = ("_done", "_out", "_stamp", "_job", "_stale")

    def __init__(
        self,
        done: BranchFiles | None,
        out: str = "",
        stamp: str = "",
        job: _Job | None = None,
        stale: BranchFiles | None = None,
    ) -> None:
        self._done = done
        self._out = out
        self._stamp = stamp
        self._job = job
        self._stale = stale

    def decided(self) -> BranchFiles | None:
        """What `result` decided, without waiting; None when no result was asked for."""
        return self._done

    def result(self) -> BranchFiles:
        if self._done is not None:
            return self._done
        job = self._job
        if job is not None and job.wait(job.deadline):
            _jobs.pop(self._out, None)
            got = _read(self._out)
            if got is not None and got[0] == self._stamp:
                self._done = _files(got[1])
                return self._done
        if self._stale is not None:
            self._done = self._stale
        elif job is None:
            self._done = BranchFiles("skipped", note="git is still computing the branch's files")
        else:
            ms = budget_ms()
            self._done = BranchFiles("skipped", note=f"git did not answer within {ms} ms")
        return self._done


def budget_ms() -> int:
    return env_ms("RQ_BRANCH_BUDGET_MS", BUDGET_MS)


def probe(root: str, git_dir: str | None, *, now: float | None = None) -> Probe:
    """Start finding the branch's files for the checkout at `root`: no fork on the trunk
    or with a fresh cached answer; else a refresh is spawned (unless one is running)
    and the search waits for it at most the budget, counted from here."""
    if git_dir is None:
        return Probe(OFF)
    branch = current_branch(git_dir)
    if branch is None:
        return Probe(OFF)  # detached HEAD: no branch to speak of
    t = trunk(git_dir)
    if t is None or t[1] == branch:
        return Probe(OFF)  # the trunk pays nothing (or a repository with no trunk we know)
    head = resolve_ref(git_dir, f"refs/heads/{branch}")
    base = resolve_ref(git_dir, t[0])
    if head is None or base is None:
        return Probe(OFF)  # a branch with no commit yet
    try:
        index_ns = os.stat(os.path.join(git_dir, "index")).st_mtime_ns
    except OSError:
        index_ns = 0
    stamp = f"{head}:{base}:{index_ns}"
    out = os.path.join(_cache_dir(), _key(root, branch))
    _reap()
    got = _read(out)
    wall = time.time() if now is None else now
    stale: BranchFiles | None = None
    landed = got[2] if got is not None else 0.0
    if got is not None:
        answer = _files(got[1])
        age = wall - got[2]
        if got[0] == stamp and 0 <= age < RECHECK_S:
            return Probe(answer)
        if got[1] is not None:
            stale = answer  # same branch: the best known until the refresh lands
    if stale is not None and (out in _jobs or _pending(out, wall, landed)):
        return Probe(stale)
    job = _jobs.get(out)
    if job is not None:  # this process's refresh (another search of the same query)
        return Probe(None, out, stamp, job)
    if _pending(out, wall, landed):  # another process's: not waited for
        return Probe(None, out, stamp)
    job = _spawn(root, base, out, stamp)
    if job is None:
        return Probe(stale or BranchFiles("skipped", note="git could not be started"))
    if stale is not None:
        return Probe(stale)  # nothing waits on a refresh of an answer already held
    return Probe(None, out, stamp, job)


def _files(files: frozenset[str] | None) -> BranchFiles:
    if files is None:
        return BranchFiles("skipped", note="git could not say what the branch changed")
    return BranchFiles("on", files, frozenset(p.rpartition("/")[0] for p in files))


def _cache_dir() -> str:
    # store/paths.rq_cache's rule, as a str: pathlib costs ~5 ms to import
    env = os.environ.get("RQ_CACHE")
    if env:
        return os.path.join(env, "branch")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "rq", "branch")


def _key(root: str, branch: str) -> str:
    # (imported here: the trunk never needs it; hashlib would also load OpenSSL's
    # _hashlib, ~2 ms, for a hash it does not need)
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - another Python
        from hashlib import blake2b

    return blake2b(
        f"{root}\0{branch}".encode("utf-8", "surrogateescape"), digest_size=10
    ).hexdigest()


def _pending(out: str, wall: float, landed: float) -> bool:
    """A refresh (maybe another process's) started less than PENDING_S ago and not
    landed since (`landed`: when the cached answer was written, 0 for none)."""
    try:
        started = os.stat(out + ".pending").st_mtime
    except OSError:
        return False
    return started > landed and 0 <= wall - started < PENDING_S


def _read(out: str) -> tuple[str, frozenset[str] | None, float] | None:
    """(stamp, files or None when git failed, written at) of the cached answer, or None."""
    try:
        st = os.stat(out)
    except OSError:
        return None
    mark = (st.st_mtime_ns, st.st_size)
    hit = _parsed.get(out)
    if hit is not None and hit[0] == mark:
        return hit[1], hit[2], st.st_mtime
    try:
        with open(out, "rb") as f:
            data = f.read()
    except OSError:
        return None
    stamp, files = parse_answer(data)
    _parsed[out] = (mark, stamp, files)
    return stamp, files, st.st_mtime


def parse_answer(data: bytes) -> tuple[str, frozenset[str] | None]:
    """The cache file: `stamp\\0`, the committed paths, `\\1\\0`, `git status -z` entries;
    or `stamp\\0\\2\\0` when git failed."""
    fields = data.split(b"\0")
    stamp = fields[0].decode("utf-8", "replace")
    if len(fields) > 1 and fields[1] == b"\x02":
        return stamp, None
    try:
        sep = fields.index(b"\x01", 1)
    except ValueError:
        return stamp, None  # (a torn file: the rename makes this not happen)
    files = {os.fsdecode(p) for p in fields[1:sep] if p}
    # what is present and changed (a deleted file has nothing in the index to boost)
    files.update(parse_status(b"\0".join(fields[sep + 1 :])).dirty)
    return stamp, frozenset(files)


def _spawn(root: str, base: str, out: str, stamp: str) -> _Job | None:
    """Start the refresh shell; it writes `out` (via a temporary file and a rename)."""
    folder = os.path.dirname(out)
    try:
        os.makedirs(folder, exist_ok=True)
        with open(out + ".pending", "w") as f:  # (its mtime says when; see _pending)
            f.write(stamp)
    except OSError:
        return None
    tmp = f"{out}.{os.getpid()}.tmp"
    from rq_engine.index.gitrun import spawn  # (only when a refresh starts)

    argv = ["sh", "-c", _SCRIPT, "sh", root, base, tmp, out, stamp]
    started = spawn("/bin/sh", argv, dict(os.environ))
    if started is None:
        return None
    job = _Job(*started, time.monotonic() + budget_ms() / 1000)
    _jobs[out] = job
    return job


def _reap() -> None:
    """Collect refreshes of this process that have finished (a long-lived face)."""
    for out, job in list(_jobs.items()):
        if job.wait(0.0):
            del _jobs[out]
