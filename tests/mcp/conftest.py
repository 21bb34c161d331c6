"""Driving a real `rq --mcp` process with the `mcp` SDK's own stdio client.

`serve(cwd, body)` starts the server in `cwd` (this test's RQ_HOME, RQ_CACHE and
RQ_WARM_DETACH=0 from the environment), initializes a ClientSession and awaits
`body(session)`. The SDK's client checks every structured result against the
tool's output schema, so each successful call is also a schema check.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.conftest import rq_bin

T = TypeVar("T")
# A guard against a hang, not a wait: every test waits on replies, never on the clock.
HANG_GUARD_S = 120

# A small repository in three languages: a class with nested definitions, a factory,
# a Go type with a method, a Ruby module; `big.py` is what the budget tests cut.
SRC = {
    "app/widgets.py": (
        "class Widget:\n"
        '    """A widget."""\n'
        "\n"
        "    def render(self, depth):\n"
        "        def inner():\n"
        "            return depth\n"
        "\n"
        "        return inner()\n"
        "\n"
        "    def refresh(self):\n"
        "        pass\n"
        "\n"
        "\n"
        "def widget_factory(kind):\n"
        "    return Widget()\n"
    ),
    "app/render.py": "def render_page(request):\n    pass\n\n\nclass Renderer:\n    pass\n",
    "tests/test_widgets.py": "class Widget:\n    pass\n\n\ndef test_render():\n    pass\n",
    "io/reader.go": (
        "package io\n\ntype Reader struct{}\n\n"
        "func (r *Reader) Read(p []byte) (int, error) {\n\treturn 0, nil\n}\n"
    ),
    "lib/shop.rb": "module Shop\n  class Cart\n    def total\n      0\n    end\n  end\nend\n",
}


@asynccontextmanager
async def connect(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    exe = rq_bin()
    params = StdioServerParameters(
        command=exe[0],
        args=[*exe[1:], "--mcp", *args],
        env={**os.environ, **(env or {})},
        cwd=str(cwd),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def serve(
    cwd: Path,
    body: Callable[[ClientSession], Awaitable[T]],
    *args: str,
    env: dict[str, str] | None = None,
) -> T:
    async def main() -> T:
        with anyio.fail_after(HANG_GUARD_S):
            async with connect(cwd, *args, env=env) as session:
                return await body(session)

    return anyio.run(main)


async def ok(s: ClientSession, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """A successful call's structured result (its text block is the same JSON)."""
    r = await s.call_tool(tool, args or {})
    assert not r.is_error, r.content
    assert isinstance(r.structured_content, dict)
    text = r.content[0].text  # type: ignore[union-attr]
    assert json.loads(text) == r.structured_content
    return r.structured_content


async def refused(s: ClientSession, tool: str, args: dict[str, Any]) -> str:
    """A call answered with a tool error: its message."""
    r = await s.call_tool(tool, args)
    assert r.is_error, r.structured_content
    text: str = r.content[0].text  # type: ignore[union-attr]
    return text
