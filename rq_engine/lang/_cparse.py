"""How a C or C++ file is parsed: same-length source repairs, and function bodies left out.

Imports tree-sitter only lazily, through rq_engine.lang.grammar (plugins import this
module on first extract()). Knows the C family's layouts and macros, not its
definitions: the walk over the tree is _cfamily.py.

A repair never changes a byte offset or a line number (as _tsrepair.py does for
TypeScript), so every line a plugin reports is the line in the user's file; bodies
are left out through Tree-sitter's included ranges, which keep every position too.
"""

from __future__ import annotations

import re

from rq_engine.lang import grammar

TYPE_CHECKING = False  # `typing` (~3 ms) is for the type checker only
if TYPE_CHECKING:
    from typing import Any

# Macros the C++ grammar cannot know, blanked to spaces before parsing (every offset
# and line stays where it was):
# - between `class`/`struct`/`union` and the name (`class LLVM_NODISCARD APInt {`,
#   `class LLVM_GSL_POINTER LLVM_NODISCARD ArrayRef {`): the grammar takes the macro
#   for the class name and the rest for a function, losing the class and all its
#   members (StringRef, APInt, SmallVector, Error, Module, Function in LLVM 14). An
#   upper-case word (with an optional argument list) followed by the real name and
#   `{`, `:`, `<` or `final` is blanked. One regex per keyword: a literal start lets
#   the regex engine skip ahead (~3x faster than an alternation).
# - upper-case words with an underscore that start a line before a declaration
#   (`LLVM_NODISCARD` alone on the line above `std::string str() const {`): the
#   grammar reads `LLVM_NODISCARD std` as a declaration and closes the class early
#   (StringRef lost every member after `str`). A line starting with such words and
#   then a name has them blanked (256 in LLVM 14's headers, ~80 ms over its 16 MB).
_CLASS_HEAD_MACROS = tuple(
    re.compile(
        keyword + rb"[ \t]+((?:[A-Z_][A-Z0-9_]*[A-Z0-9_](?:\([^()\n]*\))?[ \t]+)+)"
        rb"(?=[A-Za-z_]\w*[ \t]*(?:final\b[ \t]*)?[:{<\n])"
    )
    for keyword in (rb"class", rb"struct", rb"union")
)
_LINE_MACROS = re.compile(rb"\n[ \t]*((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*\s+)+)(?=[A-Za-z_~])")


_BLANK = bytes(10 if b == 10 else 32 for b in range(256))  # every byte a space, newlines kept


def _blank_group(m: re.Match[bytes]) -> bytes:
    """The match with its first group turned to spaces (newlines kept)."""
    whole = m.group(0)
    cut, end = m.start(1) - m.start(0), m.end(1) - m.start(0)
    return whole[:cut] + whole[cut:end].translate(_BLANK) + whole[end:]


def unmacro_cpp(source: bytes) -> bytes:
    """`source` with the macros above blanked (same length)."""
    for pattern in _CLASS_HEAD_MACROS:
        source = pattern.sub(_blank_group, source)
    return _LINE_MACROS.sub(_blank_group, source)


# An attribute macro with arguments before a declaration's type or name
# (`static inline __printf(2, 3) void _dev_err(…)`, `__alloc_size(1) void *kmalloc(…)`):
# the grammar reads it as a function declarator, and its recovery then loses the
# definition and often the ones after it (every `_dev_*` of dev_printk.h). A
# `__lowercase(…)` followed by more declaration words and a `name(` is blanked to
# spaces before parsing (C only; 363 in the kernel slice, ~70 ms over its 46 MB: the
# literal `__` prefix lets the regex engine skip ahead).
_ATTRIBUTE_MACRO = re.compile(
    rb"__[a-z]\w*[ \t]*\((?:[^()\n]|\([^()\n]*\))*\)"
    rb"(?=\s+(?:[A-Za-z_]\w*[\s*]+|\*[\s*]*)+[A-Za-z_]\w*[ \t]*\()"
)


def _blank_attribute(m: re.Match[bytes]) -> bytes:
    at, text = m.start(), m.string
    if at and (text[at - 1 : at].isalnum() or text[at - 1] == 0x5F):
        return m.group(0)  # inside a longer name (`x__foo(…)`)
    line = text.rfind(b"\n", 0, at) + 1
    if text[line:at].lstrip()[:1] == b"#" or text[max(0, line - 2) : line] == b"\\\n":
        return m.group(0)  # a macro's own body: a blank last line would end it elsewhere
    return b" " * (m.end() - at)


def unmacro_attributes(source: bytes) -> bytes:
    """`source` with attribute macros before declarations blanked (same length)."""
    return _ATTRIBUTE_MACRO.sub(_blank_attribute, source)


# The end of a function head and the `{` that opens its body: `) {`, `) const {`,
# or (Allman, and the kernel's style) `{` alone on the next line.
_BODY_OPEN = re.compile(
    rb"\)[ \t]*(?:(?:const|override|final|noexcept|volatile|&&?)[ \t]*)*"
    rb"(?:\n([ \t]*))?\{[ \t]*\n"
)
# A body's first line that is neither blank nor a preprocessor line: its indentation
# and first character.
_FIRST_LINE = re.compile(rb"(?:[ \t]*(?:#[^\n]*)?\n)*([ \t]*)([^ \t\n])")


def _close(n: int) -> re.Pattern[bytes]:
    """The first `}` line at most `n` deep."""
    return grammar.pattern(rb"\n[ \t]{0,%d}\}" % n)


def _shallow(n: int) -> re.Pattern[bytes]:
    """A code line at most `n` deep."""
    return grammar.pattern(rb"\n[ \t]{0,%d}[^ \t\n#/*]" % n)


def column_0_body_spans(source: bytes) -> list[tuple[int, int, int, int]]:
    """body_spans for C, its first rule alone: a `{` alone at column 0 after a head
    ending in `)`, to the next line starting with `}`. Found with `bytes.find`
    (~0.05 s over the kernel slice; body_spans' regex stops at every `)`: ~0.4 s)."""
    spans: list[tuple[int, int, int, int]] = []
    count, find = source.count, source.find
    row, row_at = 0, 0
    at = find(b"\n{\n")
    while at >= 0:
        close = find(b"\n}", at + 2)
        if close < 0:
            break
        start, end = at + 3, close + 1
        head = source[max(0, at - 160) : at].rstrip()
        if (
            head.endswith(b")")
            and head.rfind(b"//") <= head.rfind(b"\n")
            and count(b"{", start, end) == count(b"}", start, end)
        ):
            row += count(b"\n", row_at, start)
            start_row = row
            row += count(b"\n", start, end)
            row_at = end
            spans.append((start, start_row, end, row))
            at = find(b"\n{\n", end)
        else:
            at = find(b"\n{\n", at + 2)
    return spans


def body_spans(source: bytes) -> list[tuple[int, int, int, int]]:
    """The insides of function bodies a reader can delimit from the layout alone:
    (start byte, start row, end byte, end row), each a whole number of lines.

    A body opens with `{` ending a line after a parameter list (`) {`, `) const {`,
    or `)` then `{` alone on the next line: `struct x {`, `= {`, `namespace n {`
    are left whole). With `{` alone at column 0 (C's functions in the kernel's and
    GNU's style) the body ends at the next line starting with `}`. Otherwise the
    head's first line (before any continuation lines) sets a depth: the body's
    lines are deeper and it ends at the first `}` line that deep. When the first
    body line is not deeper (the kernel's `switch (x) {` with its `case`s, a body
    written flush with its head) or a code line between is not, or the braces
    inside do not balance, the layout is not the nesting and the body is parsed."""
    spans: list[tuple[int, int, int, int]] = []
    count, find, search = source.count, source.find, _BODY_OPEN.search
    row, row_at, pos = 0, 0, 0
    # From the end of each body left out, not through it: a match never straddles
    # a body's end (that line starts with `}`), so this finds what finditer would,
    # without stopping at each `) {` inside.
    while (m := search(source, pos)) is not None:
        pos = m.end()
        if source.find(b"//", source.rfind(b"\n", 0, m.start()) + 1, m.start()) >= 0:
            continue  # the `)` ends a comment (`struct x // NOLINT(…)` then `{`)
        start = m.end()
        if m.group(1) == b"":
            end = find(b"\n}", start - 1) + 1
            if end <= 0:
                break
        else:
            first = _FIRST_LINE.match(source, start)
            if first is None:
                continue
            head = _head_depth(source, m.start())
            if len(first.group(1)) <= head or first.group(2) == b"}":
                continue  # `switch (x) {` with its `case`s as deep as itself: parsed
            close = _close(head).search(source, start - 1)
            if close is None or close.end() - close.start() - 2 != head:
                continue
            end = close.start() + 1
            if _shallow(head).search(source, start - 1, end - 1):
                continue
        if end <= start or count(b"{", start, end) != count(b"}", start, end):
            continue  # unbalanced: the layout hides something (or a brace in a string)
        row += count(b"\n", row_at, start)
        start_row = row
        row += count(b"\n", start, end)
        row_at = pos = end
        spans.append((start, start_row, end, row))
    return spans


def _head_depth(source: bytes, at: int) -> int:
    """The indentation of the line a declaration ending at `at` starts on: back
    over continuation lines (those not ending a statement, a block or a label, and
    not a comment, a preprocessor line or blank), at most 16."""
    line = source.rfind(b"\n", 0, at) + 1
    for _ in range(16):
        if line == 0:
            break
        prev = source.rfind(b"\n", 0, line - 1) + 1
        text = source[prev : line - 1].strip()
        if not text or text[-1:] in b";{}:" or text[:1] in b"#/*":
            break
        line = prev
    depth = 0
    while source[line + depth : line + depth + 1] in (b" ", b"\t"):
        depth += 1
    return depth


def parse_skipping_bodies(grammar_name: str, source: bytes) -> Any:
    """Parse `source`, leaving out the insides of column-0 function bodies
    (body_spans): a function's body is never read, and most of a C file's bytes
    are bodies. The kernel slice's .c files parse in 1.95 s instead of 3.9 s, and
    a macro the grammar misreads inside a body (`for_each_sched_entity(se)` as a
    loop head) can no longer swallow the definitions after it. Every position
    stays the file's own (Tree-sitter's included ranges)."""
    spans = body_spans(source) if grammar_name == "cpp" else column_0_body_spans(source)
    return grammar.parse_outside(grammar_name, source, spans)
