"""The keys a stored name is looked up by: folded form, consonant skeleton, initials.

Shared by the writer (store/derived.py fills the `names` table, and the indexer's
pool workers compute the keys for a cold pass) and the reader (search/retrieval.py
computes the same keys for a query), so the two can never disagree. Here, below
both, so neither imports the other's layer. Stdlib only.
"""

from __future__ import annotations

import re

from rq_engine.core.query import JOINERS, fold
from rq_engine.core.scoring import VOWELS, initials, skeleton
from rq_engine.core.scoring.words import ASCII_STARTS

# scoring.word_starts for an ASCII name, as one regex (its one home: core/scoring/words.py)
_ASCII_STARTS = re.compile(ASCII_STARTS)

_VOWEL_BYTES = VOWELS.encode()

#: every key of a name, as a pool worker sends it: (name, fold, skeleton, initials)
NameRecord = tuple[str, str, str, str]


def name_keys(name: str) -> tuple[str, str, str]:
    """(fold, skeleton, initials) of a stored name."""
    if not name.isascii():
        return fold(name), skeleton(name), initials(name)
    # query.fold and scoring.skeleton, spelled for ASCII: replace() and bytes.translate
    # run ~3x faster than str.translate's table walk (a cold pass keys every distinct
    # name: ~0.25 s of CPU on the kernel's 172k)
    f = name.lower()
    for j in JOINERS:
        f = f.replace(j, "")
    s = f[:1] + f[1:].encode().translate(None, _VOWEL_BYTES).decode()
    return f, s, "".join(_ASCII_STARTS.findall(name)).lower()


def name_record(name: str) -> NameRecord:
    """Every derived key of a name, computed once (in a pool worker on a cold pass)."""
    f, s, i = name_keys(name)
    return name, f, s, i


__all__ = ["NameRecord", "name_keys", "name_record"]
