"""`rq --mcp`: the MCP server over stdio — the SDK's lowlevel Server, five tools, one engine process.

Wiring only. The tools' names, descriptions and schemas are data (schema.py);
arguments are checked against those schemas here, so a bad one is a tool
error naming it; every accepted call goes, one at a time, to the engine process
(channel.py, engine.py), which answers with the structured result or an error
line. The result travels both as `structuredContent` and, serialized, as the
text block (the spec's advice for clients that read only text); its size is
already bounded by the engine (bound.py). Nothing a call does can stop the
server: a refused call, a store error, even a dead engine are tool errors.
The SDK's stdio transport is given stdin and stdout as non-blocking
descriptors read on the event loop (`_Lines`), not through a worker thread a
line; that and the engine's pipes keep a round trip to a few wake-ups.

The one module that imports the `mcp` SDK (~1 s): the engine process is started
first, so it opens the index while the SDK loads.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from rq_engine import __version__
from rq_engine.mcp.arguments import check
from rq_engine.mcp.bound import dumps
from rq_engine.mcp.channel import Engine, EngineDied
from rq_engine.mcp.schema import TITLES, TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from mcp import types
    from mcp.server import ServerRequestContext

INSTRUCTIONS = (
    "rq navigates this repository's code by definitions. find_symbol jumps to where a name"
    " is defined (fuzzy: fragments, typos and qualified names work) and ranks the likely"
    " one first; symbols_in_file outlines a file; show_definition returns one definition's"
    " source; search_text finds definitions from a few descriptive words; index_status"
    " says how complete the index is. Answers are fresh (files edited since indexing are"
    " re-read) and bounded; outcome not_yet means the index is still warming, not that the"
    " definition is absent."
)


def run(ns: argparse.Namespace) -> int:
    engine = Engine(os.getcwd(), all_repos=bool(ns.all_repos))  # starts while the SDK loads
    try:
        import anyio

        anyio.run(_serve, engine)
    except KeyboardInterrupt:
        pass
    finally:
        engine.close()
    return 0


def tool_list() -> types.ListToolsResult:
    from mcp import types

    hints = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=name,
                title=TITLES[name],
                description=spec["description"],
                input_schema=spec["input"],
                output_schema=spec["output"],
                annotations=hints,
            )
            for name, spec in TOOLS.items()
        ]
    )


def _error(message: str) -> types.CallToolResult:
    from mcp import types

    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


async def _serve(engine: Engine) -> None:
    import anyio
    from mcp import types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError

    listing = tool_list()
    one_at_a_time = anyio.Lock()  # the engine answers in order; QueryService is not re-entrant

    async def ask(name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The engine's reply to one call. A call the client cancels is cancelled in the
        engine too, and its reply still read (and dropped), so the next one is in step."""
        async with one_at_a_time:
            with anyio.CancelScope(shield=True):  # (half a request would garble the next)
                await engine.send(name, args)
            try:
                return await engine.receive()
            except anyio.get_cancelled_exc_class():
                engine.interrupt()
                with anyio.CancelScope(shield=True), contextlib.suppress(EngineDied):
                    await engine.receive()
                raise

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, args = params.name, params.arguments or {}
        spec = TOOLS.get(name)
        if spec is None:  # (the spec: an unknown tool is a protocol error, not a tool error)
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"unknown tool {name!r}; the tools are {', '.join(TOOLS)}",
            )
        bad = check(spec["input"], args)
        if bad is not None:
            return _error(f"{name}: {bad}")
        try:
            reply = await ask(name, args)
        except EngineDied as e:
            return _error(f"{name}: {e}")
        if "error" in reply:
            return _error(f"{name}: {reply['error']}")
        result = reply["result"]
        return types.CallToolResult(
            content=[types.TextContent(text=dumps(result))], structured_content=result
        )

    server: Server[Any] = Server(
        "rq",
        version=__version__,
        title="rq code navigation",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # One OpenTelemetry span per message, for an exporter nobody installs here.
    server.middleware = []
    stdin, stdout = _Lines(0), _Lines(1)
    try:
        async with stdio_server(stdin, stdout) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())
    finally:
        stdin.close()
        stdout.close()


class _Lines:
    """What stdio_server needs of its stdin and stdout (`async for line`, `write`, `flush`)
    over a non-blocking descriptor awaited on the event loop: anyio's file wrapper would
    hand every line to a worker thread and back (~0.2 ms of CPU, more on a loaded machine)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.was_blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)
        self.buf = bytearray()

    def close(self) -> None:
        os.set_blocking(self.fd, self.was_blocking)  # (a terminal is shared with the shell)

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line = bytes(self.buf[: end + 1])
                del self.buf[: end + 1]
                return line.decode("utf-8", errors="replace")
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)
                continue
            if not chunk:
                if self.buf:
                    line, self.buf = bytes(self.buf), bytearray()
                    return line.decode("utf-8", errors="replace")
                raise StopAsyncIteration
            self.buf += chunk

    async def write(self, text: str) -> None:
        import anyio

        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                data = data[os.write(self.fd, data) :]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)

    async def flush(self) -> None:
        pass
