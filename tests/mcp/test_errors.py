"""Refusals are tool errors and the server keeps serving: bad arguments, paths out of the
repository (`..`, absolute, through a symlink), an unreadable index, a dead engine."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, MCPError

from tests.conftest import Repo, Run
from tests.mcp.conftest import SRC, ok, refused, serve

BAD_ARGUMENTS: list[tuple[str, dict[str, Any], str]] = [
    ("find_symbol", {}, "query: required"),
    ("find_symbol", {"query": ""}, "query: must not be empty"),
    ("find_symbol", {"query": "   "}, "query: must not be blank"),
    ("find_symbol", {"query": "::"}, "query: '::' is only scope separators"),
    ("find_symbol", {"query": 7}, "query: expected string, got integer"),
    ("find_symbol", {"query": "x", "limit": 0}, "limit: must be at least 1"),
    ("find_symbol", {"query": "x", "limit": 1000}, "limit: must be at most 100"),
    ("find_symbol", {"query": "x", "limit": True}, "limit: expected integer, got boolean"),
    ("find_symbol", {"query": "x", "kinds": ["gadget"]}, "kinds[0]: 'gadget' is not one of"),
    ("find_symbol", {"query": "x", "kinds": []}, "kinds: needs at least 1 item"),
    ("find_symbol", {"query": "x", "colour": "red"}, "colour: unknown argument"),
    ("symbols_in_file", {}, "path: required"),
    ("symbols_in_file", {"path": "app/nothing.py"}, "app/nothing.py: no such file"),
    ("symbols_in_file", {"path": "app"}, "app: not a regular file"),
    ("symbols_in_file", {"path": "README.txt"}, "not a source file rq reads"),
    ("show_definition", {}, "give `qualified`, or `path` and `line`"),
    ("show_definition", {"path": "app/widgets.py"}, "give `qualified`, or `path` and `line`"),
    ("show_definition", {"qualified": "Widget", "line": 3}, "not both"),
    ("show_definition", {"path": "app/widgets.py", "line": 0}, "line: must be at least 1"),
    ("search_text", {"words": 3}, "words: expected string"),
    ("search_text", {"words": "x", "ranker": "magic"}, "ranker: 'magic' is not one of"),
    ("index_status", {"verbose": True}, "verbose: unknown argument"),
]


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**SRC, "README.txt": "hello\n"})
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> list[str]:
        out = []
        for tool, args, _ in BAD_ARGUMENTS:
            out.append(await refused(s, tool, args))
            assert (await ok(s, "find_symbol", {"query": "Widget"}))["outcome"] == "hit"
        return out

    for (tool, _, want), got in zip(BAD_ARGUMENTS, serve(repo.root, body), strict=True):
        assert got.startswith(f"{tool}: ") and want in got, (want, got)


def test_an_unknown_tool_is_a_protocol_error(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> dict[str, Any]:
        with pytest.raises(MCPError, match="unknown tool 'grep'"):
            await s.call_tool("grep", {"pattern": "x"})
        return await ok(s, "index_status")

    assert serve(repo.root, body)["coverage"] == "complete"


def test_nothing_outside_the_repository_is_read(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    repo = make_repo(SRC)
    secret = tmp_path / "secret.py"
    secret.write_text("class Secret:\n    token = 'x'\n")
    (repo.root / "app" / "leak.py").symlink_to(secret)
    (repo.root / "app" / "alias.py").symlink_to(repo.root / "app" / "render.py")
    assert rq("--index", str(repo.root)).code == 0
    outside = [
        ("symbols_in_file", {"path": "../secret.py"}),
        ("symbols_in_file", {"path": str(secret)}),
        ("symbols_in_file", {"path": "app/../../secret.py"}),
        ("symbols_in_file", {"path": "app/leak.py"}),
        ("show_definition", {"path": "app/leak.py", "line": 1}),
        ("show_definition", {"path": "/etc/passwd", "line": 1}),
        ("show_definition", {"qualified": "Widget", "path": "../secret.py"}),
    ]

    async def body(s: ClientSession) -> list[Any]:
        out: list[Any] = [await refused(s, tool, args) for tool, args in outside]
        out.append(await ok(s, "symbols_in_file", {"path": "app/alias.py"}))  # inside: fine
        out.append(await ok(s, "symbols_in_file", {"path": "app/sub/../render.py"}))
        return out

    *errors, alias, dotted = serve(repo.root, body)
    for (_, args), msg in zip(outside, errors, strict=True):
        assert "refused" in msg and "Secret" not in msg and "root:" not in msg, (args, msg)
    assert "through a symlink" in errors[3]
    assert [n["qualified"] for n in alias["symbols"]] == ["render_page", "Renderer"]
    assert dotted["path"] == "app/render.py"


def test_an_unreadable_index_is_a_tool_error_not_a_crash(
    make_repo: Callable[..., Repo], isolated_home: Path
) -> None:
    repo = make_repo(SRC)
    db = Path(os.environ["RQ_HOME"]) / "index.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"this is not a database, " * 400)

    async def body(s: ClientSession) -> list[Any]:
        out: list[Any] = [
            await refused(s, "find_symbol", {"query": "Widget"}),
            await refused(s, "index_status", {}),
            await refused(s, "symbols_in_file", {"path": "app/widgets.py"}),
        ]
        out.append([t.name for t in (await s.list_tools()).tools])
        await refused(s, "search_text", {"words": "widget"})  # still serving
        return out

    find, status, outline, tools = serve(repo.root, body)
    for msg in (find, status, outline):
        assert f"cannot open index {db}: file is not a database" in msg, msg
    assert len(tools) == 5


def _engine_pids(root: Path) -> list[int]:
    """The engine processes serving `root` (started by this test's server)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if b"rq_engine.mcp.engine" in cmd and cwd == str(root):
            out.append(int(entry))
    return out


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs /proc and pidfd_open")
def test_a_dead_engine_is_replaced(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = make_repo(SRC)
    assert rq("--index", str(repo.root)).code == 0

    async def body(s: ClientSession) -> list[Any]:
        first = await ok(s, "find_symbol", {"query": "Widget"})
        (pid,) = _engine_pids(repo.root)
        fd = os.pidfd_open(pid)  # readable once the process has exited: an event, not a delay
        try:
            os.kill(pid, signal.SIGKILL)  # (a process this test's server started)
            await anyio.wait_readable(fd)
        finally:
            os.close(fd)
        again = await ok(s, "find_symbol", {"query": "Widget"})
        return [first, again, _engine_pids(repo.root), pid]

    first, again, pids, killed = serve(repo.root, body)
    assert again["results"] == first["results"]
    assert len(pids) == 1 and pids[0] != killed
