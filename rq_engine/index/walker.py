"""Which files of a checkout are indexed: exactly the ones git would list. Stdlib + pathspec only.

In a git work tree the answer is `git ls-files -z --cached --others --exclude-standard`
— git's own semantics, so nested .gitignore files, negations, .git/info/exclude,
the user's core.excludesFile, tracked-but-ignored files and nested repositories
all behave exactly as in `git status`. One fork per pass (~15 ms on Go's standard
library, 8k files) is nothing next to a pass, and indexing is off the query path.

A non-git directory (only indexed when asked) gets the same rules natively:
each directory's .gitignore applies below it, deeper files override shallower
ones, the last matching line wins, and a directory that is ignored is not
entered (so `!x` under an ignored directory cannot bring `x` back, as in git).
Directories holding a `.git` entry are other repositories and are not entered.
The native walk is iterative and breadth-first; `walk_native_bounded` stops it
after so many files, levels or seconds (the live scan of an untracked directory).
It never enters a symlinked directory (a loop ends there), and reads a .gitignore
only when it is a regular file (index/reading.py: a FIFO would block the walk).

Must not import tree-sitter or any plugin.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from rq_engine.core.record import Record
from rq_engine.index import reading

# `git ls-files` gives up after this long (s) and the native walker answers instead.
GIT_TIMEOUT = 20.0
# A .gitignore is read up to this size (git reads any; the corpora's largest is 2 KB).
MAX_IGNORE_BYTES = 1 << 20

TYPE_CHECKING = False  # (typing: ~3 ms to import, before `rq --index` can fork its parsers)
if TYPE_CHECKING:
    # pathspec costs ~10 ms to import: only a walk outside git needs it (_load_ignore)
    from pathspec import GitIgnoreSpec

# How many directory levels a bounded walk enters below its root. The deepest
# file of the Linux, rustc, JDK and Django corpora sits 10 directories down;
# deeper is a generated or pathological tree a live scan should not spend on.
MAX_DEPTH = 64


class Walk(Record):
    """Repo-relative, '/'-separated paths in git's order, and how they were found."""

    paths: list[str]
    via: str  # "git" | "native"
    note: str | None = None  # why git was not used, when it was expected
    started_ns: int = 0  # wall clock when the listing began (files made later may be missing)


def walk(root: Path, *, git: bool, subtrees: Sequence[str] = ()) -> Walk:
    """Every file git would list under `root` (restricted to `subtrees` when given).

    `git` says whether `root` is a git work tree; if git itself fails there (not
    installed, "dubious ownership"), the native walker answers and `note` says why.
    """
    return start(root, git=git, subtrees=subtrees).result()


class PendingWalk:
    """A walk whose `git ls-files` runs while the caller does other work (`start`)."""

    def __init__(self, root: Path, git: bool, subs: list[str]) -> None:
        import time

        self.started_ns = time.time_ns()
        self.root, self.subs = root, subs
        self.proc: subprocess.Popen[bytes] | None = None
        self.error: OSError | None = None
        if git:
            try:
                self.proc = subprocess.Popen(
                    _git_cmd(subs), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
            except OSError as e:
                self.error = e

    def result(self) -> Walk:
        if self.proc is None and self.error is None:
            return Walk(paths=list(walk_native(self.root, self.subs)), via="native")
        err: BaseException | None = self.error
        if self.proc is not None:
            try:
                out, stderr = self.proc.communicate(timeout=GIT_TIMEOUT)
            except subprocess.TimeoutExpired as e:
                # a hung git (a stuck network filesystem, a lock): walk natively instead
                self.proc.kill()
                self.proc.communicate()
                err = e
                note = f"git ls-files took over {GIT_TIMEOUT:.0f} s; walked natively"
                return Walk(paths=list(walk_native(self.root, self.subs)), via="native", note=note)
            if self.proc.returncode == 0:
                return Walk(paths=_git_paths(out), via="git", started_ns=self.started_ns)
            err = subprocess.CalledProcessError(
                self.proc.returncode, _git_cmd(self.subs), out, stderr
            )
        assert err is not None
        note = f"git ls-files failed ({_short(err)}); walked natively"
        return Walk(paths=list(walk_native(self.root, self.subs)), via="native", note=note)


def start(root: Path, *, git: bool, subtrees: Sequence[str] = ()) -> PendingWalk:
    """Start `walk`: git scans the tree (~30 ms on Django, most of it reading
    directories for untracked files) while the caller opens its transactions and
    imports the parser; `.result()` collects it."""
    subs = [n for n in (_norm_sub(s) for s in subtrees) if n is not None]
    if subtrees and not subs:
        subs = [""]  # a subtree equal to the root is the whole tree
    return PendingWalk(root, git, subs)


def _norm_sub(sub: str) -> str | None:
    s = sub.replace(os.sep, "/").strip("/")
    while s.startswith("./"):
        s = s[2:]
    if s in ("", "."):
        return None
    return s


def _short(e: BaseException) -> str:
    if isinstance(e, subprocess.CalledProcessError):
        err = (e.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return err[0] if err else f"exit {e.returncode}"
    return str(e)


def _git_cmd(subs: Sequence[str]) -> list[str]:
    cmd = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    if subs and subs != [""]:
        # literal pathspecs: a subtree named `a[1]` must not be a glob
        cmd += ["--", *(f":(literal){s}" for s in subs)]
    return cmd


def _git_paths(out: bytes) -> list[str]:
    seen: set[str] = set()
    paths: list[str] = []
    for raw in out.split(b"\0"):
        # Unmerged entries appear once per stage; an untracked nested repository
        # appears as `dir/` (git never lists inside it). Neither is a file to read.
        if not raw or raw.endswith(b"/"):
            continue
        p = os.fsdecode(raw)
        if p not in seen:
            seen.add(p)
            paths.append(p)
    return paths


def _load_ignore(dirpath: str) -> GitIgnoreSpec | None:
    # As git (2.32+) does, a .gitignore that is a symlink is not followed, and one
    # that is a FIFO is not opened (reading it would wait for a writer forever).
    try:
        data = reading.read_source(os.path.join(dirpath, ".gitignore"), MAX_IGNORE_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", errors="replace").splitlines()
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines) if lines else None


def _ignored(stack: list[tuple[str, GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    """Git's precedence: the deepest .gitignore with a matching line decides; within it the last line wins."""
    for base, spec in reversed(stack):
        sub = rel[len(base) + 1 :] if base else rel
        res = spec.check_file(sub + "/" if is_dir else sub)
        if res.include is not None:
            return bool(res.include)
    return False


def walk_native(root: Path, subs: Sequence[str] = ()) -> list[str]:
    """The non-git walker: .gitignore files applied as git would. Sorted like git's output."""
    return _walk(root, [s for s in subs if s], None, (), None, None, None)[0]


def walk_native_bounded(
    root: Path,
    max_files: int,
    *,
    keep: Callable[[str], bool] | None = None,
    skip: Collection[str] = (),
    max_depth: int = MAX_DEPTH,
    deadline: float | None = None,
) -> tuple[list[str], bool]:
    """The native walk, stopped early: (paths sorted like git's, whether nothing was left out).

    Only paths `keep` accepts are listed and counted; after `max_files` of them,
    below `max_depth` directory levels or past `deadline` (a `time.monotonic()`
    instant) the walk stops and says it was cut. Directories are visited
    breadth-first, so a cut keeps the files nearest `root`. Directories named in
    `skip` (root-relative) are not entered and do not count as a cut.
    """
    return _walk(root, [], keep, skip, max(max_files, 0), max_depth, deadline)


def _walk(
    root: Path,
    want: list[str],
    keep: Callable[[str], bool] | None,
    skip: Collection[str],
    max_files: int | None,
    max_depth: int | None,
    deadline: float | None,
) -> tuple[list[str], bool]:
    """Iterative (a tree 1,000 levels deep must not exhaust Python's stack), breadth-first."""
    out: list[str] = []
    skip = frozenset(skip)

    def in_scope(rel: str, is_dir: bool) -> bool:
        if not want:
            return True
        for s in want:
            if rel == s or rel.startswith(s + "/"):
                return True
            if is_dir and s.startswith(rel + "/"):
                return True  # an ancestor of a subtree: walk through it
        return False

    complete = True
    todo: deque[tuple[str, str, int, list[tuple[str, GitIgnoreSpec]]]] = deque()
    todo.append((str(root), "", 0, []))
    while todo:
        if deadline is not None and time.monotonic() >= deadline:
            return _sorted(out), False
        dirpath, rel_dir, depth, stack = todo.popleft()
        spec = _load_ignore(dirpath)
        if spec is not None:
            stack = [*stack, (rel_dir, spec)]
        try:
            entries = sorted(os.scandir(dirpath), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name == ".git":
                continue
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if not in_scope(rel, is_dir) or _ignored(stack, rel, is_dir):
                continue
            if is_dir:
                if rel in skip or os.path.lexists(os.path.join(e.path, ".git")):
                    continue  # another repository: git does not list inside it
                if max_depth is not None and depth >= max_depth:
                    complete = False  # (the rest of this level is still listed)
                    continue
                todo.append((e.path, rel, depth + 1, stack))
            elif keep is None or keep(rel):
                if max_files is not None and len(out) >= max_files:
                    return _sorted(out), False
                out.append(rel)
    return _sorted(out), complete


def _sorted(paths: list[str]) -> list[str]:
    # git sorts by byte order of the full path; a walk sorts per directory name,
    # which differs when a name sorts after "/" (e.g. "a-b" vs "a/b").
    paths.sort(key=lambda p: p.encode("utf-8", "surrogateescape"))
    return paths
