"""Entry point: parse, dispatch to the command module, map errors to exit codes.

Imports here are stdlib + rq_engine.core only; each command module is imported
when its flag is given, so `rq -q` loads the query path and nothing else.
"""

from __future__ import annotations

import os
import sys

from rq_engine.core.errors import ExitCode, RqError

# `typing` costs ~2 ms to import; mypy honours a local TYPE_CHECKING the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def _say(msg: str) -> None:
    print(f"rq: {msg}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        from rq_engine.cli.args import parse

        ns = parse(argv)
        if ns.cwd:
            try:
                os.chdir(ns.cwd)
            except OSError as e:
                raise RqError(f"-C {ns.cwd}: {e.strerror}", ExitCode.USAGE) from e
        try:
            os.getcwd()
        except OSError as e:  # deleted (or unreadable) under the shell that started us
            raise RqError(f"the working directory is gone: {e.strerror}", ExitCode.IOERR) from e
        return _dispatch(ns)
    except RqError as e:
        _say(e.message)
        return int(e.code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `rq -q foo | head -1`: the reader left; that is not an error.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return int(ExitCode.OK)


# Set when the command was a one-shot query: `entry` may then skip the teardown.
_one_shot = False


def entry() -> None:
    """The `rq` console script: `main`, then exit. After a one-shot query the process
    leaves with os._exit once its output is flushed: the answer is printed, the index
    closed and any warmer detached, so the interpreter's teardown (freeing every module,
    ~4 ms of a ~35 ms `rq -q`) has nothing left to do. Other commands (the picker, an
    index with worker threads) exit normally."""
    code = main()
    if _one_shot:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader that left, a closed stream
                pass
        os._exit(code)
    raise SystemExit(code)


def _dispatch(a: argparse.Namespace) -> int:
    if a.version:
        from rq_engine import __version__

        print(f"rq {__version__}")
        return 0
    if a.warm is not None:
        from rq_engine.cli import cmd_warm

        return cmd_warm.run(a)
    if a.usage:
        from rq_engine.cli import cmd_usage

        return cmd_usage.run(a)
    if a.index is not None or a.status or a.drop is not None:
        from rq_engine.cli import cmd_index

        return cmd_index.run(a)
    if a.text is not None or a.export_graph or a.graph:
        from rq_engine.cli import cmd_text

        return cmd_text.run(a)
    if a.tmux:
        from rq_tui import tmux

        return tmux.run(a)
    # The picker draws on stderr, so `--print` works with stdout captured (`vim $(rq --print)`).
    tty_out = sys.stdout.isatty() or (a.print_only and sys.stderr.isatty())
    interactive = sys.stdin.isatty() and tty_out
    if a.oneshot or a.json or a.ndjson or not interactive:
        if not a.query:
            raise RqError("a query is needed (rq -q QUERY)", ExitCode.USAGE)
        from rq_engine.cli import cmd_query

        global _one_shot
        code = cmd_query.run(a)
        _one_shot = True  # (not on an exception: main's handlers print, then a normal exit)
        return code
    from rq_tui import app  # deferred: textual costs ~200 ms to import

    return app.run(a)
