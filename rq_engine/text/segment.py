"""How the text analyzer (lexical.py, rq-analyzer/1) cuts text into identifiers
and an identifier into its parts: Unicode character classes, the general
per-character segmentation and its ASCII fast path, NFKC normalisation.

Changing what these return changes the terms every document produces: bump
lexical.ANALYZER_ID with it. Stdlib only.
"""

from __future__ import annotations

import re
import unicodedata

# Character classes for segmentation.
_UPPER, _LOWER, _DIGIT, _CASELESS, _MARK, _JOIN, _SEP = range(7)


def _cls(c: str) -> int:
    if c.isdecimal():
        return _DIGIT
    if c.isupper():
        return _UPPER
    if c.islower():
        return _LOWER
    if c.isalpha():
        return _CASELESS  # CJK, Hangul, ... (letters without case)
    cat = unicodedata.category(c)
    if cat[0] == "M":
        return _MARK  # combining/spacing marks belong to the letter before them
    if c in "_-$":
        return _JOIN  # joins parts of one identifier (snake_case, kebab-case)
    return _SEP


def segment(ident: str) -> list[str]:
    """Split one identifier (no separators but `_`, `-`, `$`) into case-preserved parts.

    Boundaries: a joiner; lower/caseless -> upper (`camelCase`); letter <-> digit
    (`Sum256`); cased <-> caseless; and the last capital of an acronym run
    before a lower-case letter (`HTTPServer` -> `HTTP`, `Server`).
    """
    parts: list[str] = []
    cur: list[str] = []
    prev = -1
    n = len(ident)
    for i, c in enumerate(ident):
        k = _cls(c)
        if k == _JOIN:
            if cur:
                parts.append("".join(cur))
                cur = []
            prev = -1
            continue
        if k == _MARK:
            if cur:
                cur.append(c)
            continue
        split = False
        if cur:
            if k == _DIGIT or prev == _DIGIT:
                split = k != prev
            elif k == _UPPER:
                split = prev in (_LOWER, _CASELESS)
                if not split and prev == _UPPER and i + 1 < n and _cls(ident[i + 1]) == _LOWER:
                    split = True  # HTTPServer: the S starts "Server"
            elif k == _CASELESS:
                split = prev in (_UPPER, _LOWER)
            elif k == _LOWER:
                split = prev == _CASELESS
        if split:
            parts.append("".join(cur))
            cur = []
        cur.append(c)
        prev = k
    if cur:
        parts.append("".join(cur))
    return parts


# ASCII fast path (nearly every identifier and path): the same segmentation as
# segment/identifiers, by regex, ~20x cheaper than the per-character loop; a
# property test keeps the two in agreement.
ASCII_IDENT = re.compile(r"[A-Za-z0-9_$-]+")
ASCII_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def identifiers(text: str) -> list[str]:
    """Maximal runs of identifier characters (letters, digits, marks, `_`, `-`, `$`)."""
    if text.isascii():
        return ASCII_IDENT.findall(text)
    return identifiers_general(text)


def identifiers_general(text: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for c in text:
        if _cls(c) == _SEP:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(c)
    if cur:
        out.append("".join(cur))
    return out


def normalize(text: str) -> str:
    """NFKC: composed and decomposed spellings, full-width forms and ligatures agree."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)
