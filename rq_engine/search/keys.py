"""Retrieval keys of a name: folded form, consonant skeleton, initials, typo deletion keys.

Shared by the writer (store/derived.py fills the `names` and `name_dels` tables,
and the indexer's pool workers compute them for a cold pass) and the reader
(search/retrieval.py computes the same keys for a query), so the two can never
disagree. Stdlib only; no sqlite3.
"""

from __future__ import annotations

import re
import zlib

from rq_engine.core.query import fold
from rq_engine.core.scoring import initials, skeleton

#: names shorter than this get no typo keys (a 1-2 edit typo of a 3-letter name is noise)
MIN_TYPO_LEN = 4
#: longer folded names are keyed on their first MAX_TYPO_LEN letters only
MAX_TYPO_LEN = 40

_VOWELS = str.maketrans("", "", "aeiouy")
# scoring.word_starts for an ASCII name, as one regex the C engine runs: a letter
# or digit after a non-alphanumeric (or at 0), an upper after a lower or digit,
# the S of HTTPServer, a digit after a letter. ~4x cheaper than the per-character
# loop, which matters because a cold pass keys every distinct name (28k in Django).
_ASCII_STARTS = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]|(?<=[a-z0-9])[A-Z]|(?<=[A-Z])[A-Z](?=[a-z])|(?<=[A-Za-z])[0-9]"
)

#: every key of a name, as a pool worker sends it: (name, fold, skeleton, initials,
#: typo keys as a JSON array — the writer hands them to SQLite's json_each as text)
NameRecord = tuple[str, str, str, str, str]


def name_keys(name: str) -> tuple[str, str, str]:
    """(fold, skeleton, initials) of a stored name."""
    if not name.isascii():
        return fold(name), skeleton(name), initials(name)
    f = fold(name)
    return f, f[:1] + f[1:].translate(_VOWELS), "".join(_ASCII_STARTS.findall(name)).lower()


def name_record(name: str) -> NameRecord:
    """Every derived key of a name, computed once (in a pool worker on a cold pass)."""
    f, s, i = name_keys(name)
    return name, f, s, i, typo_keys_json(f)


def typo_keys_json(folded: str) -> str:
    """typo_keys(folded) as a JSON array, the form the writer inserts (~40% cheaper
    than formatting the set: a run of equal letters gives one deletion, so the
    run rule dedupes the strings without a set; a crc32 collision between two
    of them may repeat a number, which the insert ignores)."""
    f = folded[:MAX_TYPO_LEN]
    if len(folded) < MIN_TYPO_LEN:
        return "[]"
    if not f.isascii():
        return "[" + ",".join(map(str, typo_keys(folded))) + "]"
    b = f.encode()
    crc = zlib.crc32
    out = [str(crc(b))]
    prev = -1
    for i, c in enumerate(b):
        if c != prev:
            out.append(str(crc(b[:i] + b[i + 1 :])))
        prev = c
    return "[" + ",".join(out) + "]"


def _key(text: str) -> int:
    # crc32 is C-fast and deterministic across processes (hash() is salted);
    # a collision only adds a candidate the scorer then rejects.
    return zlib.crc32(text.encode("utf-8"))


def deletions(text: str, depth: int) -> set[str]:
    """`text` and every string made by deleting up to `depth` (at most 2) of its letters.

    Plain slicing: the indexer derives these for every new name (~15 a name), so
    it is on the cold-pass write path.
    """
    out = {text}
    n = len(text)
    if depth >= 1 and n > 1:
        one = [text[:i] + text[i + 1 :] for i in range(n)]
        out.update(one)
        if depth >= 2 and n > 2:
            for i, d in enumerate(one):
                # deleting a later letter from each one-deletion covers every pair once
                out.update(d[:j] + d[j + 1 :] for j in range(i, n - 1))
    return out


def typo_keys(folded: str) -> set[int]:
    """The stored side of the deletion neighbourhood: the name and its one-letter deletions.

    A query's keys are its deletions up to two letters, so a shared key means
    an insertion, deletion, substitution or swap of neighbours (two edits at
    most, of which the name side contributes one): SymSpell's scheme with the
    stored side kept at depth 1 (~len+1 rows a name instead of ~len²/2).
    """
    if len(folded) < MIN_TYPO_LEN:
        return set()
    f = folded[:MAX_TYPO_LEN]
    if f.isascii():
        # one letter is one byte: delete bytes, skip the per-variant encode
        b = f.encode()
        crc = zlib.crc32
        out = {crc(b[:i] + b[i + 1 :]) for i in range(len(b))}
        out.add(crc(b))
        return out
    return {_key(s) for s in deletions(f, 1)}


def query_typo_keys(query_fold: str) -> set[int]:
    if len(query_fold) < 3:
        return set()
    f = query_fold[:MAX_TYPO_LEN]
    depth = 1 if len(f) < 5 else 2
    return {_key(s) for s in deletions(f, depth) if len(s) >= MIN_TYPO_LEN - 1}
