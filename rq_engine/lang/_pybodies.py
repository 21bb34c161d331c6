"""Python function bodies the parse may leave blank, found from the layout alone.

The Python plugin never reads inside a function body that holds no nested
`def`/`class` (python.py), yet half of Django's bytes are such bodies, and
Tree-sitter spends its time there (2.4 s of parse over Django, 1.3 s with them
blanked). Tree-sitter's included ranges cannot leave them out: Python's grammar
needs a body after `def f():`. So the body is blanked in place — every byte but
the newlines becomes a space — and its last statement line keeps one `0` behind
its own indentation (tabs kept): the function still parses, still ends on that line (its
`end_line`: the last statement, trailing comments not counted), and every byte
offset and line of the file stays its own.

A body is blanked only when the layout cannot be lying about where it ends:

- its `def` header is one line (`def f(a, b) -> T:`, a comment after it allowed),
  at the start of its line (indentation, `async`);
- the body is every line after it that is blank or deeper than the header, up
  to the first line that is not, which must be code (a comment at column 0 in
  the middle of a body is no dedent: that body is parsed);
- it holds no `def` or `class` (a nested definition is a symbol), no
  backslash continuation, an even number of each triple quote and balanced
  brackets (nothing in it opens what it does not close: a string or a bracket
  running past the first shallow line would make that line no dedent).

Stdlib only; tree-sitter is the caller's.
"""

from __future__ import annotations

from rq_engine.lang.grammar import pattern

# `def` at the start of a line's code: the header must end on the same line with
# `:` (after the last `)`, an annotation allowed), then at most a comment.
_HEAD = rb"def[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\([^\n]*\)[^\n:#]*:[ \t]*(?:#[^\n]*)?\n"
_BLANK = bytes(32 if b != 10 else 10 for b in range(256))  # all but "\n" -> " "
# Headers deeper than this are parsed as they are: finding a body's end reads it,
# so a chain of defs each nested in the last would cost the square of the file.
MAX_DEPTH = 48
_BRACKETS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))
# a nested definition (or the words in a string: then the body is parsed anyway)
_NESTED = rb"(?<![A-Za-z0-9_])(?:def|class)[ \t]"


def blank_bodies(source: bytes) -> bytes:
    """`source` with every body the layout delimits blanked (see above); the same
    length, the same lines. Returns `source` itself when there is none."""
    if b"def" not in source:
        return source
    out: bytearray | None = None
    find_line_start = source.rfind
    for m in pattern(_HEAD).finditer(source):
        line_start = find_line_start(b"\n", 0, m.start()) + 1
        lead = source[line_start : m.start()]
        indent = lead.removesuffix(b"async ").removesuffix(b"async\t")
        if indent.strip(b" \t"):
            continue  # `x = def`? not a header at the start of its line
        depth = len(indent)
        if depth > MAX_DEPTH:
            continue
        start = m.end()
        shallow = pattern(rb"\n(?![ \t]{%d})[ \t]*[^ \t\n]" % (depth + 1)).search(source, start - 1)
        end = shallow.start() + 1 if shallow else len(source)
        if shallow and source[shallow.end() - 1 : shallow.end()] == b"#":
            continue  # a comment at the header's depth or less: no dedent
        body = source[start:end]
        if not _blankable(body):
            continue
        last = _last_code(body)
        if last is None:
            continue
        if out is None:
            out = bytearray(source)
        out[start:end] = body.translate(_BLANK)
        # `0`, the body's one statement, on its last line of code behind that line's
        # own indentation (tabs stay tabs: the block's depth is the scanner's to count)
        indent_at = body.rfind(b"\n", 0, last) + 1
        out[start + indent_at : start + last] = body[indent_at:last]
        out[start + last] = 0x30
    return bytes(out) if out is not None else source


def _blankable(body: bytes) -> bool:
    if pattern(_NESTED).search(body) or b"\\\n" in body or b"\\\r" in body:
        return False
    if body.count(b'"""') % 2 or body.count(b"'''") % 2:
        return False
    return all(body.count(a) == body.count(b) for a, b in _BRACKETS)


def _last_code(body: bytes) -> int | None:
    """The offset in `body` of the first character of its last line of code (not
    blank, not a comment); None when it has none."""
    end = len(body.rstrip())
    while end > 0:
        line_start = body.rfind(b"\n", 0, end) + 1
        line = body[line_start:end]
        text = line.lstrip(b" \t")
        if text and not text.startswith(b"#"):
            return line_start + len(line) - len(text)
        end = len(body[:line_start].rstrip())
    return None
