"""Which method bodies a Java, PHP or Go file's parse may leave out, found from the layout alone.

Stdlib only (tree-sitter is the caller's, through grammar.parse_outside). Neither
plugin ever reads inside a method or function body (java.py, php.py), yet most
of the parse is spent there: in the JDK slice 29% of the bytes are such bodies,
and without them Tree-sitter parses it in 1.8 s instead of 3.4 s, plus 0.3 s to
find them (Laravel: 38% of its bytes, 0.15 s instead of 0.5 s, plus 0.05 s).
Every byte offset and line stays the file's own (Tree-sitter's included ranges),
so each definition keeps its lines: a method's node still ends at its `}`.

A body is left out only when the layout cannot be lying about where it ends:

- its head is a declaration's: Go, a `func` at column 0 whose line ends `{` (the
  plugin emits package-level definitions only: nothing in a body is one); Java,
  a line ending `) {` or `) throws … {` that is
  not a comment nor a `record` header (whose body holds members); PHP, a named
  `function` with its `{` at the end of the line or alone on the next one at the
  same indentation (a file-level `if (…) {` may hold definitions: never a head);
- its first line that is not blank is deeper than the head, and so is every
  other line up to the first one that is not, which must be the head's
  indentation and `}` (a misindented `}` a column off — JDK's BigInteger has
  one — makes the layout a lie: that body is parsed);
- the braces between balance, and nothing in it can open what it does not close
  (a Java text block, a PHP heredoc, `?>`).

The C family's bodies are _cparse.py's (its own layouts, and macros).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rq_engine.lang.grammar import pattern

# (start byte, start row, end byte, end row) of one left-out region: whole lines,
# from the line after a body's `{` up to its closing `}` line (grammar.parse_outside)
Span = tuple[int, int, int, int]

# From a head's `{`: blank lines, then the first body line's indentation and character.
_FIRST = rb"\{[ \t]*\n(?:[ \t]*\n)*([ \t]*)([^ \t\n])"
# A Java head: a line (not a comment) ending `)` [`throws …`] `{`. Groups: the
# head's indentation, the head, the first body line's indentation and character.
_JAVA_HEAD = rb"([ \t]*)([^ \t\n/*][^\n]*\)[ \t]*(?:throws[ \t][^\n;]*)?)" + _FIRST
_RECORD = rb"\brecord[ \t]"
# A PHP function or method head: `function name(…)` [`: type`] at the start of a line.
_PHP_FUNCTION = (
    rb"([ \t]*)((?:(?:abstract|final|public|protected|private|static)[ \t]+)*"
    rb"function[ \t]+&?[ \t]*\w+[ \t]*\([^\n]*\)(?:[ \t]*:[^\n{;]*)?[ \t]*)"
)
_PHP_HEAD = _PHP_FUNCTION + _FIRST
_PHP_HEAD_ABOVE = _PHP_FUNCTION + rb"\n\1" + _FIRST  # PSR-12: `{` on its own line
# A Go function or method at column 0 (gofmt's layout: its body closes with `}` at
# column 0). The empty group stands for the head's indentation.
_GO_HEAD = rb"()(func[ \t(][^\n]*)" + _FIRST

# Compiled on first use (~1 ms at import for a search revalidating one file), once
# per process (grammar.pattern).


def _shallower(depth: int) -> re.Pattern[bytes]:
    """The next non-blank line less deep than `depth`."""
    return pattern(rb"\n(?![ \t]{%d})[ \t]*[^ \t\n]" % depth)


def java(source: bytes) -> list[Span]:
    """The method, constructor and initializer bodies `source` may be parsed without."""
    return _bodies(source, b")", pattern(_JAVA_HEAD), None, (b'"""',), True)


def php(source: bytes) -> list[Span]:
    """The function and method bodies `source` may be parsed without."""
    return _bodies(
        source, b"function", pattern(_PHP_HEAD), pattern(_PHP_HEAD_ABOVE), (b"<<<", b"?>"), False
    )


def go(source: bytes) -> list[Span]:
    """The package-level function and method bodies `source` may be parsed without
    (a raw string or a block comment in one keeps it: either could hold a `}` line)."""
    return _bodies(source, b"func", pattern(_GO_HEAD), None, (b"`", b"/*"), False)


def _bodies(
    source: bytes,
    word: bytes,
    head: re.Pattern[bytes],
    above: re.Pattern[bytes] | None,
    openers: tuple[bytes, ...],
    java: bool,
) -> list[Span]:
    # One pass over the `{` that end a line (bytes.find), stepping over each body
    # left out; a head's regex runs only on a line holding `word`, which every
    # head has (~64k of the JDK slice's 113k `{` lines are visited).
    spans: list[Span] = []
    find, rfind, count = source.find, source.rfind, source.count
    row = row_at = pos = 0
    while True:
        at = find(b"{\n", pos)
        if at < 0:
            break
        pos = start = at + 2
        line = rfind(b"\n", 0, at) + 1
        m = head.match(source, line) if find(word, line, at) >= 0 else None
        if m is None:
            if above is None or source[line:at].strip():
                continue
            prev = rfind(b"\n", 0, line - 1) + 1
            if find(word, prev, line) < 0:
                continue
            m = above.match(source, prev)
            if m is None:
                continue
        indent = m.end(1) - m.start(1)
        depth = m.end(3) - m.start(3)
        if depth <= indent or m.group(4) == b"}":
            continue  # an empty body, or one written no deeper than its head
        if java and find(b"record", line, at) >= 0 and pattern(_RECORD).search(m.group(2)):
            continue
        close = _shallower(depth).search(source, m.start(3) - 1)
        if close is None or close.end() - close.start() - 2 != indent:
            continue
        if source[close.end() - 1] != 0x7D:  # `}`
            continue
        end = close.start() + 1
        if count(b"{", start, end) != count(b"}", start, end):
            continue
        if _opens(find, openers, start, end):
            continue
        row += count(b"\n", row_at, start)
        start_row = row
        row += count(b"\n", start, end)
        row_at = pos = end
        spans.append((start, start_row, end, row))
    return spans


def _opens(find: Callable[[bytes, int, int], int], what: tuple[bytes, ...], a: int, b: int) -> bool:
    for w in what:
        if find(w, a, b) >= 0:
            return True
    return False
