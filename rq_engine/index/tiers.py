"""The order a warming pass parses in: active files, then files holding the query's leaf, then the rest.

A search waiting on a warming repository accepts only literal (exact, prefix,
separator-free) matches of its leaf, and each of those lives in a file whose
text holds the leaf once lower-cased and stripped of the joiners `_ - .`. So
a pass serving a query reads every file it would parse and checks for that
(uncapped; ~0.3 s for Go's 5,500 files, several times cheaper than parsing
them), and parses those first. When they are all committed, the literal answer
is whole: the query need not wait for the rest of the sweep (D29). A path
query's tier is the files whose path holds its text (no read needed). The rest
follows in walk order, files whose name resembles the query first. Two tiers,
not a priority heap (D11): the leaf tier is exact, the resemblance only a hint.

Stdlib only; reads files, never parses them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from rq_engine.core.query import JOINERS, fold, looks_like_path
from rq_engine.index import reading

# Joiners a query may leave out (core.query.JOINERS), as bytes for translate().
_JOINERS = JOINERS.encode()
_NO_JOINERS = str.maketrans("", "", JOINERS)
# How many files are read between two looks at the stop condition (Ctrl-C, the budget).
_STOP_EVERY = 64


def needle(leaf: str) -> bytes | None:
    """The bytes a file must hold (lower-cased, joiners dropped) for a literal match of
    `leaf` to live in it; None when the leaf is too short to narrow anything."""
    f = fold(leaf)
    if len(f) < 2:
        return None
    return f.encode("utf-8")


def holds(path: str, want: bytes, cap: int) -> bool:
    """Whether the file's text (its first `cap` bytes: the indexer skips bigger files),
    lower-cased without joiners, contains `want`. Unreadable files say True: the
    parse will report them. Read as the parse reads (index/reading.py)."""
    try:
        data = reading.read_source(path, cap)
    except reading.Refused:
        return False  # a symlink, FIFO or device: the parse reads it no more than this
    except OSError:
        return True
    if not want.isascii():
        # bytes.lower() folds ASCII only; `Ärger` must find `ärger` as the scorer does
        # (and a Latin-1 `café` as the parse decodes it)
        text = reading.decode(data).lower()
        return want.decode() in text.translate(_NO_JOINERS)
    low = data.lower()
    if want in low:
        return True
    return want in low.translate(None, _JOINERS)


def resembles(path: str, query_fold: str) -> bool:
    """A file name like the query: `query.py` for `QuerySet`, `queryset_test.go` for `queryset`."""
    stem = os.path.basename(path).split(".", 1)[0]
    s = fold(stem)
    if len(s) < 3 or len(query_fold) < 3:
        return False
    return s in query_fold or query_fold in s


def order(
    paths: Sequence[str],
    root: str,
    *,
    active: Iterable[str] = (),
    leaf: str | None = None,
    hint: str | None = None,
    cap: int = 1 << 20,
    stop: Callable[[], bool] | None = None,
) -> tuple[list[str], set[str], bool]:
    """`paths` (repo-relative, walk order) reordered: active files, then the files
    holding the leaf, then names resembling `hint`, then the rest. Returns the order,
    the leaf tier, and whether that tier is whole (False when `stop` cut the reading
    short: then the literal answer cannot be known early)."""
    want_active = {a.replace(os.sep, "/").removeprefix("./") for a in active}
    first = [p for p in paths if p in want_active]
    taken = set(first)
    rest = [p for p in paths if p not in taken]
    leaf_tier: set[str] = set()
    whole = True
    want = needle(leaf) if leaf and not looks_like_path(leaf) else None
    if leaf and looks_like_path(leaf):
        # a path query is answered from file paths (search/rank.py's path layer:
        # the path contains the text): those files are its tier, no read needed
        text = leaf.strip("/").lower()
        leaf_tier = {p for p in paths if text in p.lower()}
    elif want is not None:
        for i, p in enumerate(paths):
            if stop is not None and i % _STOP_EVERY == 0 and stop():
                whole = False
                break
            if holds(os.path.join(root, p), want, cap):
                leaf_tier.add(p)
    if leaf_tier:
        first += [p for p in rest if p in leaf_tier]
        rest = [p for p in rest if p not in leaf_tier]
    qf = fold(hint) if hint else ""
    if qf:
        like = [p for p in rest if resembles(p, qf)]
        if like:
            near = set(like)
            rest = like + [p for p in rest if p not in near]
    return first + rest, leaf_tier, whole
