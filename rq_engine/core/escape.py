"""Text from the repository made safe to show: control characters as visible escapes.

A file name or a definition's name is data the repository chose. Printed raw,
an ESC in it drives the terminal (`\\x1b[2J` clears the screen) and a newline
splits one result into two, so a crafted name forges a result line. Every plain
face (`rq -q`, `--explain`, `rq --text`, the picker, diagnostics) shows such
text through `visible`; JSON carries the exact string. Stdlib only, no imports:
it runs on the `rq -q` hot path (a printable string costs one `isprintable`).
"""

from __future__ import annotations

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# Invisible characters that reorder or break a line on the terminals that honour
# them (the "Trojan Source" bidi controls, the Unicode line and paragraph
# separators): shown, not obeyed.
_FORMAT = (
    *range(0x200E, 0x2010),  # left-to-right / right-to-left marks
    *range(0x202A, 0x202F),  # bidi embeddings and overrides
    *range(0x2066, 0x206A),  # bidi isolates
    0x2028,
    0x2029,
)
_table: dict[int, str] | None = None


def _escapes() -> dict[int, str]:
    """The translation table, built on first use (~0.3 ms: never on a printable answer)."""
    global _table
    if _table is None:
        t: dict[int, str] = {}
        for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)):  # C0, DEL, C1
            t[c] = _NAMED.get(chr(c), f"\\x{c:02x}")
        for c in _FORMAT:
            t[c] = f"\\u{c:04x}"
        # A lone surrogate cannot be written as UTF-8 at all: surrogate escapes
        # (the bytes of a name that were not UTF-8) as the byte, any other as itself.
        for c in range(0xD800, 0xE000):
            t[c] = f"\\x{c - 0xDC00:02x}" if 0xDC80 <= c <= 0xDCFF else f"\\u{c:04x}"
        _table = t
    return _table


def visible(text: str, *, tabs: bool = False) -> str:
    """`text` with every control character as a visible escape (`\\x1b`, `\\n`, `\\t`,
    `\\x85`, `\\u202e`), so it prints as one inert line; printable text unchanged.
    `tabs`: leave tabs as they are (a source line shown as code, indented with them).

    A backslash already in the text is left as it is: the goal is that nothing
    printed can act on the terminal or start a line, not a reversible encoding
    (JSON output is the exact form)."""
    if text.isprintable():
        return text
    if tabs and "\t" in text:
        return "\t".join(visible(part) for part in text.split("\t"))
    return text.translate(_escapes())


def visible_spans(text: str) -> tuple[str, list[int]]:
    """`visible(text)` and, for each character of `text` and one past the end, where it
    starts in the result: a face that marks letters by position (the matched letters
    of a name) marks the same letters after escaping."""
    if text.isprintable():
        return text, list(range(len(text) + 1))
    table = _escapes()
    starts = [0]
    parts: list[str] = []
    for ch in text:
        piece = table.get(ord(ch), ch)
        parts.append(piece)
        starts.append(starts[-1] + len(piece))
    return "".join(parts), starts


__all__ = ["visible", "visible_spans"]
