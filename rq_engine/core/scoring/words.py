"""A name's words: where they start (camel humps, joiners, digit runs), the
lower-cased words themselves, their initials, the consonant skeleton, and the
subsequence test SQLite runs before a row is decoded. Stdlib only (the `rq -q`
hot path); the index's name keys (core/namekeys.py) are built from these.
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.query import fold


@lru_cache(maxsize=8192)
def word_starts(name: str) -> list[bool]:
    """Where words begin: after a joiner or symbol, at camel humps, at digit runs.

    `RefundProcessor` and `refund_processor` both start words at r and p;
    `HTTPServer` starts words at H and S; `$ZodObject` at Z and O.
    """
    n = len(name)
    out = [False] * n
    prev = ""
    for i, ch in enumerate(name):
        if ch.isalnum():
            if not prev or not prev.isalnum():
                out[i] = True
            elif ch.isupper() and (prev.islower() or prev.isdigit()):
                out[i] = True
            elif (
                ch.isupper() and prev.isupper() and i + 1 < n and name[i + 1].islower()
            ):  # the S of HTTPServer
                out[i] = True
            elif ch.isdigit() and not prev.isdigit():
                out[i] = True
        prev = ch
    return out


def tokens(name: str) -> list[str]:
    """The lower-cased words of a name (`RefundProcessor` → [refund, processor])."""
    starts = word_starts(name)
    words: list[str] = []
    cur = ""
    for ch, st in zip(name, starts, strict=True):
        if not ch.isalnum():
            if cur:
                words.append(cur)
            cur = ""
            continue
        if st and cur:
            words.append(cur)
            cur = ""
        cur += ch.lower()
    if cur:
        words.append(cur)
    return words


def initials(name: str) -> str:
    """First letters of the words: `HashWithIndifferentAccess` → `hwia`."""
    return "".join(t[0] for t in tokens(name))


#: the letters a consonant skeleton drops (core/namekeys' ASCII path reads them too)
VOWELS = "aeiouy"
_VOWELS = str.maketrans("", "", VOWELS)


def skeleton(text: str) -> str:
    """The consonant skeleton of a folded name, first letter kept: `migration` → `mgrtn`.

    Dropped-vowel queries and vowel typos (`ForiegnKey`) share it with their name.
    """
    f = fold(text)
    return f[:1] + f[1:].translate(_VOWELS) if f else ""


def could_match(name: str, query_fold: str) -> bool:
    """Necessary condition for an in-order match: the folded query is a subsequence
    of the folded name. Registered as a SQLite function to drop rows before decoding."""
    if not query_fold:
        return False
    low = name.lower()
    pos = 0
    for ch in query_fold:
        pos = low.find(ch, pos) + 1
        if pos == 0:
            return False
    return True
