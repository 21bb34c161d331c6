"""How the text analyzer (lexical.py, rq-analyzer/2) cuts text into identifiers
and an identifier into its parts, and its NFKC normalisation.

An identifier's parts are its words by the symbol ranker's own rule
(core/scoring/words.word_starts: camel humps, acronyms, digit runs, joiners), so a
name splits the same way whichever ranker reads it. Changing what these return
changes the terms every document produces: bump lexical.ANALYZER_ID with it.
Stdlib only.
"""

from __future__ import annotations

import re
import unicodedata

from rq_engine.core.scoring.words import ASCII_WORDS, words

# ASCII fast path (nearly every identifier and path): the same cuts as
# identifiers_general and segment, by regex, ~20x cheaper than the per-character
# loops; property tests keep them in agreement.
ASCII_IDENT = re.compile(r"[A-Za-z0-9_$-]+")
ASCII_PART = re.compile(ASCII_WORDS)


def _in_identifier(c: str) -> bool:
    """Letters, digits, marks (they belong to the letter before them) and the joiners
    `_`, `-`, `$` (snake_case, kebab-case, `$ZodObject`)."""
    return c.isalnum() or c in "_-$" or unicodedata.category(c)[0] == "M"


def segment(ident: str) -> list[str]:
    """Split one identifier (no separators but `_`, `-`, `$`) into case-preserved
    parts: `HTTPServer` -> `HTTP`, `Server`; `用户Name` -> `用户`, `Name`."""
    return words(ident)


def identifiers(text: str) -> list[str]:
    """Maximal runs of identifier characters (letters, digits, marks, `_`, `-`, `$`)."""
    if text.isascii():
        return ASCII_IDENT.findall(text)
    return identifiers_general(text)


def identifiers_general(text: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for c in text:
        if not _in_identifier(c):
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
