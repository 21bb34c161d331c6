"""Exit codes and the one user-facing error type. Every face maps failures through here."""

from __future__ import annotations


class ExitCode:
    """rq's exit codes, plain ints (an IntEnum's import, with what it pulls in,
    costs `rq -q` ~2 ms)."""

    OK = 0  # results
    MISS = 1  # definitive miss: the index is complete and nothing matches
    WARMING = 2  # indeterminate miss: the index is still warming
    # no match, and nothing to match: the repository's complete index holds no file
    # rq reads (e.g. all Kotlin); not 1, which would claim absence, nor 2 (waiting won't help)
    UNREAD = 3
    USAGE = 64  # EX_USAGE: bad flags or arguments
    DATAERR = 65  # EX_DATAERR (reserved)
    IOERR = 74  # EX_IOERR: unreadable/unwritable store or file, bad graph.json
    INTERRUPTED = 130  # Ctrl-C / Esc with nothing to show

    @classmethod
    def all(cls) -> dict[str, int]:
        """Every code by name."""
        return {k: v for k, v in vars(cls).items() if k.isupper()}


class RqError(Exception):
    """A failure with a one-line message for the user and the exit code it maps to."""

    def __init__(self, message: str, code: int = ExitCode.IOERR) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class UsageError(RqError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.USAGE)


#: what a query over every repository says when the index holds none yet (exit 2:
#: nothing was looked at, so no match would be a false promise)
NOTHING_INDEXED = "the index holds no repository yet (rq --index DIR)"
