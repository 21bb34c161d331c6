"""What a file names by qualifier: the (qualifier, name) pairs behind the canonical prior.

`io.Reader` in a Go file that imports io, `ActiveRecord::Base` in Ruby,
`from django.db.models import Model` in Python, `use Illuminate\\Support\\Collection`
in PHP: each says the file leans on one definition among the same-named ones.
Counted per file (a pair once however often it is written), summed over the
repository by the store, read by the scorer's `referenced` feature.

Every pattern here starts with a literal (`import`, `from`, `::`, `\\`, `pkg.`):
Python's `re` then skips to the next occurrence at C speed (~235 MB/s on
Django's sources), where a pattern starting with a character class tries every
byte (`(\\w+)\\.(\\w+)` runs at ~13 MB/s: 4.8 s over Go std, more than its
parse). Nothing here opens a file or imports tree-sitter.
"""

from __future__ import annotations

import re

from rq_engine.lang.grammar import pattern

Pair = tuple[str, str]

_WORD = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_IDENT = rb"[A-Za-z_][A-Za-z0-9_]*"
#: pairs kept from one file: a generated file naming thousands of things says
#: nothing about which of them a codebase leans on
MAX_PAIRS = 2000
#: import-bound names followed through a file (`io.` for `import "io"`): each is a
#: scan of the whole file, so a file importing 1,500 packages would cost a second
MAX_BOUND = 64


def _before(data: bytes, end: int) -> bytes:
    """The identifier that ends at `end` (b'' if none)."""
    chunk = data[max(0, end - 80) : end]
    head = chunk.rstrip(_WORD)
    word = chunk[len(head) :]
    return word if word[:1] and not word[:1].isdigit() else b""


def _text(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _after(data: bytes, sep: bytes, capital: bool, out: set[Pair]) -> None:
    """Every `qualifier<sep>name` in `data`, found by its separator.

    _before inlined, and each pair decoded once: both halves are ASCII word bytes, so
    distinct byte pairs are distinct text pairs. Laravel writes ~27k `A\\B` for ~6k
    pairs: 30 ms of CPU over its files before, 23 ms so."""
    seen: set[tuple[bytes, bytes]] = set()
    for m in _pattern(sep, capital).finditer(data):
        end = m.start()
        chunk = data[end - 80 if end > 80 else 0 : end]
        q = chunk[len(chunk.rstrip(_WORD)) :]
        if not q or q[0] in _DIGITS:
            continue
        pair = (q, m.group(1))
        if pair in seen:
            continue
        seen.add(pair)
        out.add((_text(q), _text(pair[1])))
        if len(out) >= MAX_PAIRS:
            return


_DIGITS = b"0123456789"


def _pattern(sep: bytes, capital: bool) -> re.Pattern[bytes]:
    name = rb"([A-Z][A-Za-z0-9_]*)" if capital else rb"([A-Za-z_][A-Za-z0-9_]*)"
    return pattern(re.escape(sep) + name)  # compiled once per process (grammar.pattern)


def _bound(data: bytes, names: dict[bytes, bytes], out: set[Pair]) -> None:
    """`b.Name` for each name `b` an import bound (qualifier: what `b` stands for).
    By bytes.find, not a pattern per name: compiling one costs more than the scan."""
    ident = pattern(_IDENT).match
    for bound, qualifier in list(names.items())[:MAX_BOUND]:
        needle = bound + b"."
        q = _text(qualifier)
        i = data.find(needle)
        while i >= 0:
            end = i + len(needle)
            if not (i and data[i - 1 : i] in _NOT_BEFORE):  # `myio.Reader`: another `io`
                m = ident(data, end)
                if m:
                    out.add((q, _text(m.group(0))))
                    if len(out) >= MAX_PAIRS:
                        return
            i = data.find(needle, end)


# a byte before `b.` that makes it something else: `myio.`, `x.io.`, a path `./io.go`
_NOT_BEFORE = frozenset(bytes([c]) for c in _WORD + b"./\\'\"$@-")


# --------------------------------------------------------------------- languages


def scoped(data: bytes) -> set[Pair]:
    """`a::B` (Ruby constants; Rust and C++ paths), and Rust's `a::{B, C}`."""
    out: set[Pair] = set()
    _after(data, b"::", False, out)
    for m in pattern(_BRACED).finditer(data):
        q = _before(data, m.start())
        if q:
            for item in m.group(1).split(b","):
                w = pattern(_IDENT).match(item.strip())
                if w:
                    out.add((_text(q), _text(w.group(0))))
    return out


_BRACED = rb"::\{([^{}]{0,2000})\}"


def ruby(data: bytes) -> set[Pair]:
    out: set[Pair] = set()
    _after(data, b"::", True, out)
    return out


def php(data: bytes) -> set[Pair]:
    """`Support\\Collection` in `use` statements and fully qualified names."""
    out: set[Pair] = set()
    _after(data, b"\\", True, out)
    return out


_GO_BLOCK = rb"import\s*\(([^)]{0,20000})\)"
_GO_ONE = rb"import\s+(?:([A-Za-z_]\w*|\.)\s+)?\"([^\"\n]+)\""
_GO_SPEC = rb"(?:([A-Za-z_]\w*|\.)\s+)?\"([^\"\n]+)\""


def go(data: bytes) -> set[Pair]:
    """`pkg.Name` for every package the file imports (`io.Reader`)."""
    names: dict[bytes, bytes] = {}
    specs = [m.groups() for m in pattern(_GO_ONE).finditer(data)]
    for block in pattern(_GO_BLOCK).finditer(data):
        specs += [m.groups() for m in pattern(_GO_SPEC).finditer(block.group(1))]
    for alias, path in specs:
        last = path.rsplit(b"/", 1)[-1]
        if alias in (b".", b"_"):
            continue
        bound = alias or last.replace(b"-", b"_")
        names[bound] = last
    out: set[Pair] = set()
    _bound(data, names, out)
    return out


_PY_COMMENT = rb"#[^\n]*"
# each imported name, its `as` alias skipped (`A, B as C` -> A, B)
_PY_NAMES = rb"([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]+as[ \t]+[A-Za-z_][A-Za-z0-9_]*)?"
_PY_FROM = rb"from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]{0,5000}\)|[^\n;#]*)"


def python(data: bytes) -> set[Pair]:
    """`from django.db.models import Model` -> (models, Model). Only the imports: a
    scan for `models.Model` after `from django.db import models` would cost a full
    pass over the file per bound name (Django: 0.4 s of CPU), for a style of reference
    the `from` form already counts in most codebases."""
    out: set[Pair] = set()
    for m in pattern(_PY_FROM).finditer(data):
        module = m.group(1).rstrip(b".").rsplit(b".", 1)[-1]
        if not module:
            continue  # `from . import x`
        clause = m.group(2)
        if b"#" in clause:
            clause = pattern(_PY_COMMENT).sub(b"", clause)
        q = module.decode("utf-8", "replace")
        out.update((q, n.decode("utf-8", "replace")) for n in pattern(_PY_NAMES).findall(clause))
        if len(out) >= MAX_PAIRS:
            return set(list(out)[:MAX_PAIRS])
    return out


_JS_IMPORT = rb"import\s+(?:type\s+)?([^;'\"]{0,2000}?)\s*from\s*['\"]([^'\"\n]+)['\"]"
_JS_EXPORT = rb"export\s+(?:type\s+)?(\{[^;'\"]{0,2000}?)\s*from\s*['\"]([^'\"\n]+)['\"]"
_JS_REQUIRE = rb"require\(\s*['\"]([^'\"\n]+)['\"]"
_JS_DESTRUCTURED = rb"\{([^{}]{0,500})\}\s*=\s*\Z"


def _module_stem(spec: bytes) -> bytes:
    last = spec.rstrip(b"/").rsplit(b"/", 1)[-1]
    stem = last.split(b".", 1)[0] if not last.startswith(b".") else b""
    return b"" if stem in (b"index", b"") else stem


def javascript(data: bytes) -> set[Pair]:
    """`import { A, B as C } from './x'` -> (x, A), (x, B); `import * as ns from './x'`
    binds `ns`, and `ns.Name` is (x, Name)."""
    out: set[Pair] = set()
    names: dict[bytes, bytes] = {}
    found = [(m.group(1), m.group(2)) for m in pattern(_JS_IMPORT).finditer(data)]
    found += [(m.group(1), m.group(2)) for m in pattern(_JS_EXPORT).finditer(data)]
    for m in pattern(_JS_REQUIRE).finditer(data):  # `const { A, B } = require('./x')`
        lhs = pattern(_JS_DESTRUCTURED).search(data, max(0, m.start() - 520), m.start())
        if lhs:
            found.append((b"{" + lhs.group(1) + b"}", m.group(1)))
    for clause, spec in found:
        stem = _module_stem(spec)
        if not stem:
            continue
        star = re.search(rb"\*\s*as\s+([A-Za-z_$][\w$]*)", clause)
        if star:
            names[star.group(1)] = stem
        brace = clause.find(b"{")
        if brace >= 0:
            for item in clause[brace + 1 : clause.find(b"}", brace)].split(b","):
                words = item.replace(b":", b" ").split()
                if words and words[0] == b"type":
                    words = words[1:]
                if words and pattern(_IDENT).fullmatch(words[0]):
                    out.add((_text(stem), _text(words[0])))
                    if len(out) >= MAX_PAIRS:
                        return out
    names = {b: q for b, q in names.items() if pattern(_IDENT).fullmatch(b)}
    _bound(data, names, out)
    return out


_JAVA_IMPORT = rb"import\s+(?:static\s+)?([\w.]+)\s*;"


def java(data: bytes) -> set[Pair]:
    """`import java.util.List;` -> (util, List); `import static a.B.m;` -> (B, m)."""
    out: set[Pair] = set()
    for m in pattern(_JAVA_IMPORT).finditer(data):
        parts = m.group(1).split(b".")
        if len(parts) >= 2 and parts[-1] != b"*":
            out.add((_text(parts[-2]), _text(parts[-1])))
    return out
