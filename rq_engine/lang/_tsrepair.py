"""Same-length source repairs applied to TypeScript before parsing, where the grammar misreads valid code.

Stdlib only. A repair never changes a byte offset or a line number, so every line the
plugin reports is the line in the user's file.

Not repaired, on purpose: variance annotations (`interface Foo<in out A>`) also parse
with errors in this grammar (215 Effect files), but the error stays inside the type
parameters: blanking them changed no extracted symbol on Effect.
"""

from __future__ import annotations

import re

# A generic call signature on its own line after a member without a separator:
#     readonly dual: {
#       <A>(self: A): A
#       /** docs */
#       <A>(that: A): (self: A) => A
# TypeScript's ASI ends the member at the newline, but the Tree-sitter grammar reads
# `A\n<A>(…)` as the generic type `A<A>` and the error cascades: Effect's Function.ts lost
# every definition after line 235 (including `pipe`). Turning the indentation character
# that starts such a line (or the comments before it) into `;` keeps every byte offset
# and line number and makes the parse match TypeScript's. Only after a line that can
# end a member (`A`, `)`, `]`, `>`, `}`; not `=>`), so a signature after `{` is left alone.
# Only for .ts: in TSX a line starting with `<` is JSX.
_LINE_STARTS_WITH_LT = re.compile(rb"\n[ \t]+<")
_MEMBER_END = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$)]>}")


def separate_signatures(source: bytes) -> bytes:
    """`source` with a `;` before each generic call signature that starts a line (same length).

    Found by one C-side regex scan for indented lines starting with `<` (~0.02 s on
    Zod's 6 MB; a regex that also matched the comment blocks cost 0.4 s); only those
    few lines are looked at in Python.
    """
    buf: bytearray | None = None
    for m in _LINE_STARTS_WITH_LT.finditer(source):
        at = place = m.start() + 1  # start of the `<` line
        # walk up over the comment and blank lines directly above it: the `;` goes before them
        while True:
            prev_start = source.rfind(b"\n", 0, at - 1) + 1
            prev = source[prev_start : at - 1].strip()
            at = prev_start
            if not prev:
                if prev_start == 0:
                    break
                continue
            if prev.endswith(b"*/"):  # a whole block comment in one step (JSDoc runs ~20 lines)
                opened = source.rfind(b"/*", 0, at)
                if opened >= 0:
                    prev_start = at = source.rfind(b"\n", 0, opened) + 1
            if prev.startswith((b"//", b"*", b"/*")) or prev.endswith(b"*/"):
                if source[prev_start : prev_start + 1] in (b" ", b"\t"):
                    place = prev_start
                continue
            break
        if not prev or prev[-1] not in _MEMBER_END or prev.endswith(b"=>"):
            continue
        if buf is None:
            buf = bytearray(source)
        buf[place] = 0x3B  # ";"
    return source if buf is None else bytes(buf)
