"""The engine process behind `rq --mcp`: one thread running the tools, one call at a time.

mcp/channel.py starts it as `python -m rq_engine.mcp.engine [--all-repos]` in
the served directory and writes one JSON request a line to its stdin,
`{"id", "tool", "args"}`; it answers one line each, `{"id", "result"}` or
`{"id", "error"}`, then does the call's after-work (counting it, handing
leftover warming to the detached warmer — or, with RQ_WARM_DETACH=0, warming
right here) before it reads the next request. So a call always sees what the
previous one's warming committed. SIGUSR1 cancels the running call (its client
gave it up): a search waiting on warming returns what it has, and the reply,
which nobody reads, keeps the two sides in step.

Why a process of its own: a call may index in-process (a never-indexed or
warming repository, a checkout to catch up), and indexing forks its parse pool;
a fork is only safe from a process with one thread, and the MCP server runs
anyio's threads. Here there is one thread, so the engine runs exactly as under
`rq -q`. It also keeps the SDK (~1 s to import) out of this process, and a crash
in a grammar away from the server.

Must not import mcp (nor anyio or pydantic).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

from rq_engine.core.cancel import Cancelled, CancelToken
from rq_engine.core.errors import ExitCode, RqError
from rq_engine.mcp import bound
from rq_engine.mcp.bound import ToolError
from rq_engine.mcp.scope import Session

Reply = dict[str, Any]
After = Callable[[], None] | None
Tool = Callable[[Session, dict[str, Any]], tuple[Reply, After]]


def tools() -> dict[str, Tool]:
    from rq_engine.mcp.files import show_definition, symbols_in_file
    from rq_engine.mcp.find import find_symbol
    from rq_engine.mcp.status import index_status
    from rq_engine.mcp.text import search_text

    return {
        "find_symbol": find_symbol,
        "symbols_in_file": symbols_in_file,
        "show_definition": show_definition,
        "search_text": search_text,
        "index_status": index_status,
    }


def handle(sess: Session, table: dict[str, Tool], req: object) -> tuple[Reply, After]:
    """One request's reply (a result or an error line for the model) and its after-work."""
    if not isinstance(req, dict):
        return {"id": None, "error": "malformed request"}, None
    rid, name, args = req.get("id"), req.get("tool"), req.get("args") or {}
    fn = table.get(str(name))
    if fn is None or not isinstance(args, dict):
        return {"id": rid, "error": f"unknown tool {name!r}"}, None
    try:
        result, after = fn(sess, args)
        return {"id": rid, "result": result}, after
    except ToolError as e:
        msg = e.message
    except RqError as e:  # an index that cannot be opened, a repository not indexed
        if e.code == ExitCode.IOERR:
            sess.reset()  # the next call reopens the index
        msg = e.message.replace("--text query", "words").replace("--text", "words")
    except Cancelled:
        msg = "cancelled"  # (the client gave the call up; nobody reads this)
    except sqlite3.Error as e:
        sess.reset()  # the next call reopens the index
        msg = f"cannot read the index: {e}"
    except Exception as e:  # a bug must cost one call, not the server
        traceback.print_exc(file=sys.stderr)
        sess.reset()
        msg = f"internal error in {name}: {e!r}"
    return {"id": rid, "error": msg}, None


def serve(sess: Session, wire_in: IO[bytes], wire_out: IO[bytes]) -> None:
    table = tools()
    for raw in wire_in:
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        sess.cancel = CancelToken()
        reply, after = handle(sess, table, req)
        wire_out.write((bound.dumps(reply) + "\n").encode("utf-8"))
        wire_out.flush()
        if after is not None:
            try:
                after()
            except Exception:  # the answer is out; a failed hand-off only means no warmer
                traceback.print_exc(file=sys.stderr)
        keep_fresh(sess)


def keep_fresh(sess: Session) -> None:
    """Renew the "nothing moved" verdict before it expires, between calls: an agent's
    next call then answers without asking git inline (a call outside the verdict whose
    answer lacks the exact name asks, ~20-35 ms on Django). The detached warmer asks;
    one per repository at a time (its lock), and none while the verdict is young."""
    from rq_engine.index.fresh import recheck_ms
    from rq_engine.search.handoff import start_warmer

    try:
        svc = sess.service(False)
        co = svc.needs_warming(ahead_ms=recheck_ms() // 2)
        if co is not None:
            start_warmer(svc.conn, co)
    except (RqError, sqlite3.Error):
        sess.reset()  # (the next call reports it)


def prewarm(sess: Session) -> None:
    """Open the index and load the query path while the server imports the SDK, so the
    first call costs what any call costs."""
    try:
        sess.service(False).searcher()
        from rq_engine.mcp import files, find, status  # noqa: F401
    except (RqError, sqlite3.Error):
        sess.reset()  # (the first call reports it)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Ctrl-C at the terminal reaches the whole process group: the server decides, and
    # closes this process's stdin when it leaves.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sess = Session(os.getcwd(), all_repos="--all-repos" in argv)

    def give_up(signum: int, frame: object) -> None:
        sess.cancel.cancel()  # the client cancelled the running call (channel.interrupt)

    # (a cancel before this line kills a starting engine: the next call starts another)
    signal.signal(signal.SIGUSR1, give_up)
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # git and the warmer must not read the wire...
    os.close(null)
    os.dup2(2, 1)  # ...nor a stray print write into it
    try:
        prewarm(sess)
        serve(sess, wire_in, wire_out)
    except BrokenPipeError:
        pass  # the server left
    finally:
        sess.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
