"""A name's words: where they start (camel humps, joiners, digit runs), the
lower-cased words themselves, their initials, the consonant skeleton, and the
subsequence test SQLite runs before a row is decoded. Stdlib only (the `rq -q`
hot path); the index's name keys (core/namekeys.py) are built from these.
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.query import fold

# The rule's two ASCII spellings as regular expressions the C engine runs, for the
# readers that split many names: ~4x cheaper than the loops below. Sources only —
# compiled where they are used (importing `re` costs `rq -q` ~4 ms, and its hot path
# never needs them); a property test holds each equal to word_starts.

#: a name's words (words() below for an ASCII name): an acronym before a capitalised
#: word, a capitalised or lower-case word, an acronym, a digit run with the lower-case
#: letters after it (`sha256sum` → sha, 256sum). The text analyzer's fast path.
ASCII_WORDS = r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+[a-z]*"

#: word_starts' True positions for an ASCII name: a letter or digit after a
#: non-alphanumeric (or at 0), an upper after a lower or digit, the S of HTTPServer,
#: a digit after a letter. The name keys' initials (core/namekeys.py: a cold pass keys
#: every distinct name, 28k in Django).
ASCII_STARTS = (
    r"(?<![A-Za-z0-9])[A-Za-z0-9]|(?<=[a-z0-9])[A-Z]|(?<=[A-Z])[A-Z](?=[a-z])|(?<=[A-Za-z])[0-9]"
)

# a character's part in a name (word_starts): what ends a word, and the letters' cases
_SEP, _UPPER, _LOWER, _DIGIT, _CASELESS, _MARK = range(6)


def _kind(ch: str) -> int:
    if ch.isdigit():
        return _DIGIT
    if ch.isupper():
        return _UPPER
    if ch.islower():
        return _LOWER
    if ch.isalnum():
        return _CASELESS  # CJK, Hangul, ... (letters without case; `½` too)
    if ch.isascii():
        return _SEP
    from unicodedata import category  # a non-ASCII name only: off the ASCII hot path

    return _MARK if category(ch)[0] == "M" else _SEP


@lru_cache(maxsize=8192)
def word_starts(name: str) -> list[bool]:
    """Where words begin: after a joiner or symbol, at camel humps, at digit runs —
    the one rule for both rankers (the symbol scorer's abbreviations and name keys,
    the text analyzer's terms: text/segment.py).

    `RefundProcessor` and `refund_processor` both start words at r and p;
    `HTTPServer` starts words at H and S; `$ZodObject` at Z and O; `utf8Decode` at
    u, 8 and D, and `sha256sum` at s and 2 (lower-case letters after digits stay in
    the digits' word). Beyond ASCII: a letter without case (CJK) starts a word after
    a cased one and a cased one after it (`用户Name`), and a combining mark belongs
    to the letter before it.
    """
    n = len(name)
    out = [False] * n
    if name.isascii():  # nearly every name: the same rule without a call per character
        before = ""
        for i, ch in enumerate(name):
            if ch.isalnum():
                if not before or not before.isalnum():
                    out[i] = True
                elif ch.isupper():
                    out[i] = (
                        before.islower()
                        or before.isdigit()
                        or (before.isupper() and i + 1 < n and name[i + 1].islower())
                    )
                elif ch.isdigit():
                    out[i] = not before.isdigit()
            before = ch
        return out
    prev = _SEP
    for i, ch in enumerate(name):
        k = _kind(ch)
        if k == _SEP:
            prev = k
            continue
        if k == _MARK:
            continue  # part of the letter before it (or of nothing, after a joiner)
        if prev == _SEP:
            out[i] = True
        elif k == _UPPER:
            out[i] = prev in (_LOWER, _DIGIT, _CASELESS) or (
                prev == _UPPER and i + 1 < n and name[i + 1].islower()
            )  # the S of HTTPServer
        elif k == _DIGIT:
            out[i] = prev != _DIGIT
        elif k == _CASELESS:
            out[i] = prev in (_UPPER, _LOWER)
        else:  # lower
            out[i] = prev == _CASELESS
        prev = k
    return out


def words(name: str) -> list[str]:
    """A name's words as written (`HTTPServer` → [HTTP, Server], `$ZodObject` →
    [Zod, Object]): cut at word_starts, joiners and symbols dropped."""
    starts = word_starts(name)
    out: list[str] = []
    cur = ""
    ascii = name.isascii()
    for ch, st in zip(name, starts, strict=True):
        k = (_LOWER if ch.isalnum() else _SEP) if ascii else _kind(ch)
        if k == _SEP:
            if cur:
                out.append(cur)
            cur = ""
            continue
        if st and cur:
            out.append(cur)
            cur = ""
        if k != _MARK or cur:
            cur += ch
    if cur:
        out.append(cur)
    return out


def tokens(name: str) -> list[str]:
    """The lower-cased words of a name (`RefundProcessor` → [refund, processor])."""
    return [w.lower() for w in words(name)]


def initials(name: str) -> str:
    """First letters of the words: `HashWithIndifferentAccess` → `hwia`."""
    return "".join(t[0] for t in tokens(name))


#: English's little joining words: articles, conjunctions, prepositions and the
#: copula. A name spells them out (`render_to_string`, `ListenAndServe`,
#: `HashWithIndifferentAccess`) and a person abbreviating it leaves them out
#: (`renderstring`, `listenserve`): an in-order match may skip one of them, never a
#: word that carries meaning (`ParseJSON` is not ParseGodepsJSON).
FILLER_WORDS = frozenset(
    "a an the and or nor of to in on at by for from with into onto via per as is".split()
)

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
