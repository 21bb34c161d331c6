"""The `rq` entry point: parse, dispatch to a face, map errors to exit codes.

It stands above the faces (cli's commands, the MCP server, the picker and tmux
binding in rq_tui), so no face imports another (tests/test_layers.py). Imports
here are stdlib + rq_engine.core only; each face's module is imported when its
flag is given, so `rq -q` loads the query path and nothing else.
"""

from __future__ import annotations

import os
import sys

from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError

# `typing` costs ~2 ms to import; mypy honours a local TYPE_CHECKING the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


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
        say(e.message)
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
    except _store_errors() as e:
        # A store failure no command mapped itself (a page found corrupt mid-query, a
        # full disk, an unreadable file): one line and 74, never a traceback.
        from rq_engine.store.paths import index_db_file

        # (an OperationalError is the store's situation — full, locked; any other
        # DatabaseError is damage, which `rq --check` describes)
        hint = "" if type(e).__name__ == "OperationalError" else "; rq --check lists its problems"
        say(f"index error: {e} (index {index_db_file()}{hint})")
        return int(ExitCode.IOERR)
    except OSError as e:
        where = f": {e.filename}" if e.filename else ""
        say(f"I/O error: {e.strerror or e}{where}")
        return int(ExitCode.IOERR)


def _store_errors() -> tuple[type[BaseException], ...]:
    """sqlite3's errors once something imported it (`except` evaluates this only when an
    exception reaches it: `rq --version` and a usage error import no sqlite3). The
    one-shot path loads the `_sqlite3` extension alone (core/sqlite); its Error is the
    package's."""
    sqlite3 = sys.modules.get("sqlite3") or sys.modules.get("_sqlite3")
    return (sqlite3.Error,) if sqlite3 is not None else ()


# Set when the command was a one-shot query or an index/drop: `entry` may then skip
# the teardown.
_one_shot = False


def entry() -> None:
    """The `rq` console script: `main`, then exit. After a one-shot query the process
    leaves with os._exit once its output is flushed: the answer is printed, the index
    closed and any warmer detached, so the interpreter's teardown (freeing every module,
    ~4 ms of a ~35 ms `rq -q`) has nothing left to do. So does `rq --index` (and
    `--drop`) once its summary is out and its connection closed: there the teardown
    (a full collection over the parser's objects, freeing ~170 modules) was 15-25 ms
    of a ~0.3 s cold pass over laravel, every ms of it after the work was done. Other
    commands (the picker, the warmer, the MCP server) exit normally."""
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
    global _one_shot
    # (which flags go together was checked in cli/args.py, with the arguments)
    if a.bind is not None:  # checked whatever the mode, before anything runs
        _use_bind(a.bind)
    if a.version:
        from rq_engine.cli.version import describe

        print(describe())
        return 0
    if a.shell is not None or a.man:
        return _print_text(a.shell)
    if a.mcp:  # (a store problem is each call's tool error, not a server that never starts)
        from rq_engine.mcp import server

        return server.run(a)
    if not a.graph:  # every other command reads or writes the index
        from rq_engine.store.paths import home_problem

        problem = home_problem()  # (one stat)
        if problem is not None:
            raise RqError(problem, ExitCode.IOERR)
    if a.check:
        from rq_engine.cli import cmd_check

        return cmd_check.run(a)
    if a.warm is not None:
        from rq_engine.cli import cmd_warm

        return cmd_warm.run(a)
    if a.usage:
        from rq_engine.cli import cmd_usage

        return cmd_usage.run(a)
    if a.status:
        from rq_engine.cli import cmd_status

        return cmd_status.run(a)
    if a.index is not None or a.drop is not None:
        from rq_engine.cli import cmd_index

        code = cmd_index.run(a)  # (closes its connection and reaps its workers before it returns)
        _one_shot = True  # (as a query's: not on an exception)
        return code
    if a.text is not None or a.export_graph or a.graph:
        from rq_engine.cli import cmd_text

        return cmd_text.run(a)
    if a.query and a.query.strip():
        from rq_engine.core.query import check_query

        a.query = check_query(a.query)  # over-long: a usage error on every face
    if a.tmux:
        from rq_tui import tmux

        return tmux.run(a)
    # The picker draws on stderr, so `--print` works with stdout captured (`loc=$(rq --print)`).
    tty_out = sys.stdout.isatty() or (a.print_only and sys.stderr.isatty())
    interactive = sys.stdin.isatty() and tty_out
    from rq_engine.cli.args import wants_one_shot  # (loaded by parse)

    opener = a.open or a.show or a.web  # the best match, opened (cli/openers.py)
    if wants_one_shot(a) or opener or not interactive:  # (--json, --explain, ...: no picker)
        if not a.query or not a.query.strip():  # blank and empty alike
            form = "-o" if a.open else "--show" if a.show else "--web" if a.web else "-q"
            raise RqError(f"a query is needed (rq {form} QUERY)", ExitCode.USAGE)
        # A one-shot query allocates a bounded amount and leaves by os._exit: the
        # collector's passes over the engine's freshly imported modules (a full one
        # landed mid-import every time) cost ~1 ms of a ~30 ms `rq -q` and free next
        # to nothing. Collections stay on, far apart (a warming query may parse much).
        import gc

        gc.set_threshold(100_000, 50, 100)
        from rq_engine.cli import cmd_query

        code = cmd_query.run(a)
        _one_shot = True  # (not on an exception: main's handlers print, then a normal exit)
        return code
    from rq_tui import app  # deferred: textual costs ~200 ms to import

    return app.run(a)


def _print_text(shell: str | None) -> int:
    """`rq --shell SHELL` (key bindings and completion) or `rq --man` (roff) on stdout."""
    if shell is not None:
        from rq_engine.cli.shell import snippet

        text = snippet(shell)
    else:
        from rq_engine import __version__
        from rq_engine.cli.manpage import render

        text = render(__version__)
    sys.stdout.write(text)
    return 0


def _use_bind(specs: list[str]) -> None:
    """`--bind SPEC` (repeatable): checked as RQ_BIND is (a bad one: 64 whatever the face),
    then handed on as RQ_BIND in its place — the picker, and a --tmux popup, read that."""
    from rq_tui import keys  # (stdlib only: no textual)

    # (a spec may end in one ',' — `a:b,` — which would make a `,` key of the next)
    spec = ",".join(s.strip().removesuffix(",") for s in specs if s.strip())
    keys.parse(spec, source="--bind")
    os.environ["RQ_BIND"] = spec
