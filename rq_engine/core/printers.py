"""The printer seam: one answer, printed as plain lines, one JSON document or JSON lines.

A command builds an `Output` — the answer's own facts (`head`, and `tail` for
the facts that follow the results), one JSON object per result, and the plain
lines a person reads — and hands it to the printer its flags chose
(`printer_for`). `rq -q`, `rq --text`, `rq --status` and `rq --check` print
through it; the MCP face replies with `Output.document()`, the object `--json`
prints. A new format is one more
printer here, not an elif in every command (ripgrep's printer crate is the model).

Stdlib only, and `json` is imported by the printers that write it: the plain
answer of `rq -q` is on the hot path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

Record = dict[str, object]


class Output:
    """One answer in every printable form.

    `head` and `tail`: the answer's facts before and after `results` in the JSON
    document (insertion order is the printed order); `stream`: the names of those
    facts each JSON line repeats (a line must stand alone); `records`: one JSON
    object a result; `lines`: the plain text a person reads (results, and their
    explanations when asked for), each already made safe to print."""

    __slots__ = ("head", "records", "tail", "stream", "lines")

    def __init__(
        self,
        head: Record,
        records: list[Record],
        lines: list[str],
        *,
        tail: Record | None = None,
        stream: tuple[str, ...] = (),
    ) -> None:
        self.head = head
        self.records = records
        self.lines = lines
        self.tail = tail or {}
        self.stream = stream

    def document(self) -> Record:
        """The whole answer as one JSON object: head, `results`, tail."""
        return {**self.head, "results": self.records, **self.tail}

    def stream_records(self) -> list[Record]:
        """Each result as a JSON line of its own, with the facts in `stream` repeated."""
        facts = {**self.head, **self.tail}
        extra = {k: facts[k] for k in self.stream}
        return [{**r, **extra} for r in self.records]


class Printer:
    """Writes an Output to a stream in one format."""

    def write(self, out: TextIO, o: Output) -> None:
        raise NotImplementedError


class PlainPrinter(Printer):
    """One line a result (and the explanation lines under it): for people and `grep`."""

    def write(self, out: TextIO, o: Output) -> None:
        if o.lines:
            out.write("\n".join(o.lines) + "\n")


class JsonPrinter(Printer):
    """The whole answer as one JSON document (`--json`)."""

    def write(self, out: TextIO, o: Output) -> None:
        import json

        out.write(json.dumps(o.document(), ensure_ascii=False) + "\n")


class NdjsonPrinter(Printer):
    """One JSON object a line, a result each (`--ndjson`): readable as it streams."""

    def write(self, out: TextIO, o: Output) -> None:
        import json

        out.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in o.stream_records()))


class RecordPrinter(Printer):
    """Each plain line ended by `end`: `--vimgrep` (newlines) and `--print0` (NULs)."""

    def __init__(self, end: str) -> None:
        self.end = end

    def write(self, out: TextIO, o: Output) -> None:
        out.write("".join(line + self.end for line in o.lines))


def printer_for(*, json: bool = False, ndjson: bool = False, print0: bool = False) -> Printer:
    """The printer the output flags choose; plain when none."""
    if json:
        return JsonPrinter()
    if ndjson:
        return NdjsonPrinter()
    if print0:
        return RecordPrinter("\0")
    return PlainPrinter()


__all__ = [
    "JsonPrinter",
    "NdjsonPrinter",
    "Output",
    "PlainPrinter",
    "Printer",
    "RecordPrinter",
    "printer_for",
]
