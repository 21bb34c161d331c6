"""What one MCP server searches and may read, and the engine services it keeps open.

The scope is the repository the server was started in (its checkout root, or
the directory itself outside git), plus every indexed checkout under `--all-repos`.
Every path a tool is given goes through `Session.resolve`: relative to the
server's directory or absolute, normalised, and refused unless it lies inside
an allowed root both as written and with its symlinks resolved — so `..` and a
symlink pointing out of the repository are errors, never reads. A file found
through the index is checked the same way (`readable`) before it is opened.

Runs in the engine process (mcp/engine.py); never imports mcp.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass

from rq_engine.core.cancel import CancelToken
from rq_engine.core.identity import checkout_for
from rq_engine.mcp.bound import ToolError
from rq_engine.search.service import QueryService, Wait

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.text.service import TextService

# The largest file show_definition reads (the index skips files above 1 MiB anyway).
MAX_READ_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class Root:
    """A checkout the server may read: its root as recorded, and with symlinks resolved."""

    path: str
    real: str
    identity: str | None  # None: not indexed (and, outside git, not indexable unasked)
    git: bool


@dataclass(frozen=True, slots=True)
class Target:
    """A file a tool was asked about: where it is, its checkout, its repo-relative path."""

    abspath: str  # with symlinks resolved
    root: Root
    rel: str  # '/'-separated, relative to root.real


def inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


class Session:
    """The engine's state across calls: one QueryService per scope (one index connection
    each), the text service (it keeps its rankers), the wait policy of a program."""

    def __init__(self, cwd: str, *, all_repos: bool = False) -> None:
        self.cwd = os.path.abspath(cwd)
        self.all_repos = all_repos
        # A program's wait, as `rq -q --json`: RQ_WAIT_BUDGET_MS on a warming index.
        self.wait = Wait.for_face(None, interactive=False)
        # The running call's token: the server cancels it (SIGUSR1) when its client gives
        # the call up, and a search or a warm waiting on the index stops (engine.py).
        self.cancel = CancelToken()
        self._services: dict[bool, QueryService] = {}
        self._text: TextService | None = None

    def service(self, all_repos: bool | None = None) -> QueryService:
        """The query service for this call's scope (the server's, unless narrowed)."""
        wide = self.all_repos if all_repos is None else all_repos
        if wide and not self.all_repos:
            raise ToolError(
                f"all_repos: this server serves {self.here().path} only;"
                " start it as `rq --mcp --all-repos` to search every indexed repository"
            )
        svc = self._services.get(wide)
        if svc is None:
            svc = self._services[wide] = QueryService(self.cwd, all_repos=wide, source="mcp")
        return svc

    @property
    def conn(self) -> sqlite3.Connection:
        return self.service(False).conn

    @property
    def text(self) -> TextService:
        if self._text is None:
            from rq_engine.text.service import TextService

            self._text = TextService(keep=2)  # edge-only changes reuse the postings
        return self._text

    def here(self) -> Root:
        """The repository the server was started in."""
        s = self.service(False).searcher()
        git = os.path.isdir(os.path.join(s.root, ".git")) or os.path.isfile(
            os.path.join(s.root, ".git")
        )
        return Root(s.root, os.path.realpath(s.root), s.repository, git)

    def identity(self, root: Root) -> str:
        """The repository identity of a root, asking git's config when it is not indexed."""
        return root.identity or checkout_for(root.path).identity

    def roots(self) -> list[Root]:
        """Every root a tool may read, the deepest first (a checkout nested in another)."""
        out = [self.here()]
        if self.all_repos:
            for path, ident in self.conn.execute(
                "SELECT c.root_path, r.identity FROM checkouts c"
                " JOIN repositories r ON r.id = c.repository_id"
            ):
                if str(path) != out[0].path and os.path.isdir(path):
                    out.append(Root(str(path), os.path.realpath(path), str(ident), True))
        return sorted(out, key=lambda r: -len(r.real))

    def resolve(self, path: str) -> Target:
        """The file `path` names, if it is a regular file inside an allowed root."""
        if "\0" in path:
            raise ToolError("path: contains a NUL character")
        full = os.path.normpath(path if os.path.isabs(path) else os.path.join(self.cwd, path))
        real = os.path.realpath(full)
        roots = self.roots()
        for root in roots:
            if not (inside(full, root.path) or inside(full, root.real)):
                continue
            if not inside(real, root.real):
                raise ToolError(
                    f"{path}: leads out of the repository {root.path} through a symlink; refused"
                )
            return Target(real, root, self._file_rel(path, real, root))
        where = roots[-1].path if roots else self.cwd
        also = " or another indexed repository" if self.all_repos else ""
        raise ToolError(f"{path}: outside the repository {where}{also}; refused")

    def readable(self, abspath: str) -> Target:
        """A file the index pointed at, under the same rules as a path given by the model."""
        real = os.path.realpath(abspath)
        for root in self.roots():
            if inside(real, root.real):
                return Target(real, root, self._file_rel(abspath, real, root))
        raise ToolError(f"{abspath}: outside the repositories this server serves; refused")

    def _file_rel(self, shown: str, real: str, root: Root) -> str:
        try:
            st = os.stat(real)
        except OSError:
            raise ToolError(f"{shown}: no such file") from None
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{shown}: not a regular file")
        return os.path.relpath(real, root.real).replace(os.sep, "/")

    def read(self, t: Target) -> str:
        """The file's text (UTF-8, undecodable bytes replaced), bounded."""
        try:
            fd = os.open(t.abspath, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                data = f.read(MAX_READ_BYTES + 1)
        except OSError as e:
            raise ToolError(f"{t.rel}: cannot read it ({e.strerror or e})") from None
        if len(data) > MAX_READ_BYTES:
            raise ToolError(f"{t.rel}: larger than {MAX_READ_BYTES >> 20} MiB; not read")
        return data.decode("utf-8", errors="replace")

    def display(self, t: Target) -> str:
        """The path as find_symbol shows it: relative to the server's directory."""
        try:
            return os.path.relpath(os.path.join(t.root.path, t.rel), self.cwd)
        except ValueError:
            return os.path.join(t.root.path, t.rel)

    def reset(self) -> None:
        """Drop every connection (after a store error: the next call reopens)."""
        for svc in self._services.values():
            try:
                svc.close()
            except sqlite3.Error:
                pass
        self._services.clear()

    def close(self) -> None:
        self.reset()
        self._text = None
