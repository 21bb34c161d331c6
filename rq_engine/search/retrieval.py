"""Candidate retrieval: the SQL reads behind each pipeline layer, one small function each.

Every read is bounded (LIMIT) and served by an index: `symbols(repository_id,
name_lower)` for exact names, `names(repository_id, fold|skel|ini)` ranges for
prefix, skeleton and first-letter scans (the near misses: search/nearmiss.py;
the trigram FTS for substrings: search/substring.py). Retrieval only proposes;
the scorer decides. Imports the stdlib and rq_engine.core/search only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rq_engine.core.columns import added_names
from rq_engine.core.scoring import could_match
from rq_engine.core.scoring.rank import Row
from rq_engine.core.sqlite import sqlite3

_TOP = "\U0010ffff"
#: names a first-letter scan window reads at most (~3 ms of GLOB in C)
SCAN_WINDOW = 15000
#: files a capped read's context rows come from at most (symbols_named_in_files: each
#: file's definitions are read through its own index, ~100-300 rows a file)
CONTEXT_FILES = 100
#: index seeks files_in_directory makes at most (a file or a subdirectory each)
SEEKS = 400

#: the columns of a Row, for reads that join symbols and files in their own order
ROW_COLUMNS = (
    "s.id, s.name, s.kind, s.visibility, s.parent, s.line, s.end_line, s.language,"
    " f.path, s.repository_id, s.file_id,"
    # when the file was last touched (recency): the later of its stored mtime (ns) and
    # last commit time (s, captured by sweeps), in unix seconds; 0 when neither is known
    " MAX(COALESCE(f.mtime, 0) / 1000000000, COALESCE(f.commit_time, 0))"
    # then the facts core/columns.py declares since m001, in its order
    + "".join(f", s.{n}" for n in added_names())
)
_ROW_SQL = f"SELECT {ROW_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
# (a row decodes into core.scoring.rank.Row, which ranking reads; ROW_COLUMNS is its order)


def register(conn: sqlite3.Connection) -> None:
    """Register the scorer's necessary condition so SQL drops rows before Python decodes them."""
    conn.create_function("could_match", 2, _could_match_sql, deterministic=True)


def _could_match_sql(name: object, query_fold: object) -> int:
    return int(isinstance(name, str) and could_match(name, str(query_fold)))


def _rows(cur: Iterable[Sequence[object]]) -> list[Row]:
    return [Row(*r) for r in cur]  # type: ignore[arg-type]


def symbols_named(
    conn: sqlite3.Connection,
    repo: int,
    lowers: Sequence[str],
    limit: int,
    keep: set[str] | None = None,
) -> list[Row]:
    """Definitions whose lower-cased name is one of `lowers` (index seeks), in the
    order of `lowers` 50 names at a time, at most `limit` rows; in a chunk, fields
    last, then the index's order (name, row). A name can have more fields than the
    cap (2,489 are named `list` in Linux): read in the index's order they left out
    the struct `list`, which ranks above every one of them (`kind`): the answer.

    With `keep`, only the rows of those names are decoded, and exactly those the
    read of every name in `lowers` would return: the cap is counted on all of them
    (the rows of a name left out still take their place), so leaving names out
    never lets in a row the full read would cut (search/layers.py, D47)."""
    if not lowers:
        return []
    out: list[Row] = []
    taken = 0  # rows the full read has returned so far (`out` when nothing is left out)
    # chunks keep the statement under SQLite's variable limit and the cache warm
    uniq = list(dict.fromkeys(lowers))
    for i in range(0, len(uniq), 50):
        chunk = uniq[i : i + 50]
        marks = ",".join("?" * len(chunk))
        left = limit - taken
        if keep is None:
            got = _rows(
                conn.execute(
                    f"{_ROW_SQL} WHERE s.repository_id = ? AND s.name_lower IN ({marks})"
                    " ORDER BY s.kind = 'field', s.name_lower, s.id LIMIT ?",
                    (repo, *chunk, left),
                )
            )
            out += got
            taken += len(got)
        else:
            out += _kept_rows(conn, repo, chunk, [n for n in chunk if n in keep], left)
            taken += min(count_named(conn, repo, chunk), left)
        if taken >= limit:
            break
    return out


def count_named(conn: sqlite3.Connection, repo: int, lowers: Sequence[str]) -> int:
    """How many definitions have one of these lower-cased names (the names' index
    alone: no row is read)."""
    total = 0
    uniq = list(dict.fromkeys(lowers))
    for i in range(0, len(uniq), 400):
        chunk = uniq[i : i + 400]
        marks = ",".join("?" * len(chunk))
        total += int(
            conn.execute(
                f"SELECT count(*) FROM symbols WHERE repository_id = ? AND name_lower IN ({marks})",
                (repo, *chunk),
            ).fetchone()[0]
        )
    return total


def _kept_rows(
    conn: sqlite3.Connection, repo: int, chunk: list[str], kept: list[str], left: int
) -> list[Row]:
    """The rows of `kept` among the first `left` rows of `chunk`'s names in the read's
    order: the order is decided on every name's rows (ids and kinds only), and only
    the kept ones are joined and decoded."""
    if not kept:
        return []
    marks = ",".join("?" * len(chunk))
    kmarks = ",".join("?" * len(kept))
    return _rows(
        conn.execute(
            f"WITH cut AS (SELECT s.id AS id, s.name_lower AS low FROM symbols s"
            f" WHERE s.repository_id = ? AND s.name_lower IN ({marks})"
            f" ORDER BY s.kind = 'field', s.name_lower, s.id LIMIT ?)"
            f" {_ROW_SQL} JOIN cut ON cut.id = s.id WHERE cut.low IN ({kmarks})"
            " ORDER BY s.kind = 'field', s.name_lower, s.id",
            (repo, *chunk, left, *kept),
        )
    )


def defines(conn: sqlite3.Connection, repo: int, lower: str) -> bool:
    """Whether the index holds a definition whose lower-cased name is `lower` (one
    index seek: no row decoded, none sorted)."""
    row = conn.execute(
        "SELECT 1 FROM symbols WHERE repository_id = ? AND name_lower = ? LIMIT 1", (repo, lower)
    ).fetchone()
    return row is not None


def symbols_named_in_scope(
    conn: sqlite3.Connection,
    repo: int,
    lowers: Sequence[str],
    scope_last: str,
    scope_files: Iterable[int],
    limit: int,
) -> list[Row]:
    """Like symbols_named, filtered in SQL to rows the scope could answer: a parent
    ending with it, or a file that declares it or whose path names it
    (`scope_files`, see files_for_scope). A scoped query on a very common leaf
    (`__init__`: ~10k rows in CPython) decodes only those."""
    if not lowers:
        return []
    marks = ",".join("?" * len(lowers))
    files = sorted(scope_files)[:900]
    fmarks = ",".join("?" * len(files)) or "NULL"
    low = _like_escape(scope_last.lower())
    return _rows(
        conn.execute(
            f"{_ROW_SQL} WHERE s.repository_id = ? AND s.name_lower IN ({marks})"
            f" AND (s.file_id IN ({fmarks}) OR lower(s.parent) LIKE ? ESCAPE '\\') LIMIT ?",
            (repo, *lowers, *files, "%" + low, limit),
        )
    )


def symbols_named_in_files(
    conn: sqlite3.Connection, repo: int, lowers: Sequence[str], paths: Iterable[str]
) -> list[Row]:
    """Definitions with these names in these files (repo-relative paths): a crowded
    name's rows where a boost would lift them, which a capped read may have left out.
    Through the files' own index, not the names' (Linux names `flags` 5,793 times; a
    file holds a few hundred definitions). The first CONTEXT_FILES of `paths`."""
    wanted = list(dict.fromkeys(paths))[:CONTEXT_FILES]
    if not lowers or not wanted:
        return []
    # (CONTEXT_FILES ids and a prefix read's 300 names: one statement each, well under
    # SQLite's variable limit)
    ids = [
        int(r[0])
        for r in conn.execute(
            f"SELECT id FROM files WHERE repository_id = ? AND path IN ({','.join('?' * len(wanted))})",
            (repo, *wanted),
        )
    ]
    if not ids:
        return []
    names = sorted(set(lowers))
    # `+s.name_lower`: the planner must seek the files, never scan the name's rows
    return _rows(
        conn.execute(
            f"{_ROW_SQL} WHERE s.file_id IN ({','.join('?' * len(ids))})"
            f" AND +s.name_lower IN ({','.join('?' * len(names))})",
            (*ids, *names),
        )
    )


def files_in_directory(conn: sqlite3.Connection, repo: int, path: str, limit: int) -> list[str]:
    """The indexed files beside `path` (its own directory, not below it), at most
    `limit`, in path order. Seeks from one to the next and over each subdirectory's
    whole range, so an anchor at the top of a tree of 78k files reads its few
    neighbours, not every path under them (at most SEEKS seeks)."""
    head, sep, _ = path.rpartition("/")
    lo = head + sep
    hi = head + "0" if sep else _TOP  # ('0' follows '/': the directory's whole range)
    out: list[str] = []
    cur, after = lo, False
    for _ in range(SEEKS):
        row = conn.execute(
            "SELECT path FROM files WHERE repository_id = ?"
            f" AND path {'>' if after else '>='} ? AND path < ? ORDER BY path LIMIT 1",
            (repo, cur, hi),
        ).fetchone()
        if row is None:
            break
        found = str(row[0])
        below = found.find("/", len(lo))
        if below < 0:
            out.append(found)
            if len(out) >= limit:
                break
            cur, after = found, True
        else:  # a subdirectory: on past all of it
            cur, after = found[:below] + "0", False
    return out


def files_for_scope(conn: sqlite3.Connection, repo: int, scope_last: str) -> set[int]:
    """Files whose path names the scope as a directory or file stem (`strings.Split`)."""
    low = _like_escape(scope_last.lower())
    # LIKE folds ASCII case itself (as lower() does), and a match at the path's start
    # is its own pattern: no per-row lower() and '/' || path (half the scan: ~2.8 ->
    # ~1.2 ms on Go's std, the same ids)
    return {
        int(r[0])
        for r in conn.execute(
            "SELECT id FROM files WHERE repository_id = ?"
            " AND (path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\'"
            " OR path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\') LIMIT 900",
            (repo, f"{low}/%", f"%/{low}/%", f"{low}.%", f"%/{low}.%"),
        )
    }


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def glob_escape(ch: str) -> str:
    return f"[{ch}]" if ch in "*?[]" else ch


def names_fold_prefix(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """Distinct names whose folded form starts with `folded` (exact included), shortest first
    among the first `limit` in key order."""
    if not folded:
        return []
    rows = conn.execute(
        "SELECT name FROM names WHERE repository_id = ? AND fold >= ? AND fold < ? LIMIT ?",
        (repo, folded, folded + _TOP, limit),
    ).fetchall()
    return [r[0] for r in rows]


def names_skeleton_prefix(conn: sqlite3.Connection, repo: int, skel: str, limit: int) -> list[str]:
    """Names whose consonant skeleton starts with the query's: dropped vowels, vowel typos."""
    if len(skel) < 3:
        return []
    rows = conn.execute(
        "SELECT name FROM names WHERE repository_id = ? AND skel >= ? AND skel < ? LIMIT ?",
        (repo, skel, skel + _TOP, limit),
    ).fetchall()
    return [r[0] for r in rows]


def after_letter(c: str) -> str:
    """The upper bound of the names that start with the letter `c`: the next code point
    SQLite can be given (surrogates are not text), or, past U+10FFFF, `c + _TOP` as a
    prefix's range is bounded."""
    n = ord(c) + 1
    if 0xD800 <= n <= 0xDFFF:
        n = 0xE000
    return chr(n) if n <= 0x10FFFF else c + _TOP


def subsequence_glob(folded: str) -> str:
    """`ctxmgr` → `c*t*x*m*g*r*`: the in-order necessary condition, evaluated natively."""
    return "*".join(glob_escape(c) for c in folded) + "*"


def letter_windows(folded: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The two ranges of `names.fold` a first-letter scan reads, SCAN_WINDOW names of
    each: from the query's first two letters to the end of its first letter's names,
    then from that letter's start up to its first two letters. On most repositories
    that is the whole first-letter range; on a crowded one (CPython's 23k names
    starting with `t`, most of them `test_*`; Linux's ~300k with `s`) it is the names
    around the query's own start rather than the range's first ones. The first window
    stops where the second starts: what it would read past that point, the second
    has read already (both are the first SCAN_WINDOW of their range)."""
    first, two = folded[0], folded[:2]
    return ((two, after_letter(first)), (first, two))


def names_first_letter_scan(
    conn: sqlite3.Connection, repo: int, folded: str, limit: int
) -> list[str]:
    """Bounded scan of the names sharing the query's first letter, filtered by the
    subsequence GLOB in C (no Python call per row): abbreviations and dropped letters.

    Two windows of SCAN_WINDOW names each, one from the query's first two letters
    and one from its first letter: the whole range on most repositories, a
    bounded slice of it on a huge one (Linux has ~300k names starting with `s`;
    scanning them all costs ~100 ms).
    """
    if len(folded) < 2:
        return []
    pattern = subsequence_glob(folded)
    out: dict[str, None] = {}
    for start, stop in letter_windows(folded):
        # The window reads only idx_names_fold (rowid and fold: a covering scan); a row
        # is fetched for its name only when the GLOB matched (half the time of
        # fetching every row in the window: ~2.5 against ~5 ms on Go's std).
        for (name,) in conn.execute(
            "SELECT n.name FROM (SELECT rowid AS id, fold FROM names WHERE repository_id = ?"
            " AND fold >= ? AND fold < ? LIMIT ?) AS w CROSS JOIN names AS n ON n.id = w.id"
            " WHERE w.fold GLOB ? LIMIT ?",
            (repo, start, stop, SCAN_WINDOW, pattern, limit),
        ):
            out[name] = None
    return list(out)[:limit]


#: initials keys one query probes at most
INITIALS_KEYS = 400


def initials_keys(folded: str, longest: int = 5) -> list[str]:
    """Initials a multi-word name matched by `folded` could have: its first letter plus
    a later letter for each further word, in order (`valerr` → `ve`, `vr`, `val`, …).

    The distinct keys, shortest first and in the order of their leftmost spelling in
    the query (what listing every combination of positions and dropping repeats
    gives), at most INITIALS_KEYS. Only distinct keys are built: listing the
    combinations costs ~n⁴/24 for n letters — 43 s for 200 repeated letters, which
    spell one key of each length."""
    out: list[str] = []
    rest = folded[1:]
    for k in range(1, min(longest, len(folded))):
        if _distinct_subsequences(rest, 0, k, folded[0], out):
            break
    return out


def _distinct_subsequences(s: str, start: int, k: int, head: str, out: list[str]) -> bool:
    """Append to `out` every distinct `head` + k letters of s[start:] in order, each by
    its leftmost spelling, in the order of those spellings; True once INITIALS_KEYS
    are out. Every step taken leads to at least one key (enough letters are left
    after it), so the work is bounded by the keys made, not by the combinations."""
    if k == 0:
        out.append(head)
        return len(out) >= INITIALS_KEYS
    # each letter once, at its first place (a later spelling of it adds no key)
    for ch in dict.fromkeys(s[start : len(s) - k + 1]):
        if _distinct_subsequences(s, s.index(ch, start) + 1, k - 1, head + ch, out):
            return True
    return False


def names_by_initials(conn: sqlite3.Connection, repo: int, folded: str, limit: int) -> list[str]:
    """Multi-word names whose word initials the query can spell, subsequence-checked
    in C: abbreviations on any scale, by index seeks on (repository_id, ini). Those
    with the most initials spelled come first (`drcr` → devm_reset_controller_register,
    whose initials it is, before the names it spells two or three initials of)."""
    if len(folded) < 2:
        return []
    keys = initials_keys(folded)
    marks = ",".join("?" * len(keys))
    rows = conn.execute(
        # INDEXED BY: the planner would read the GLOB's first-letter range of
        # idx_names_fold instead (every `m` name: 67 ms for `mutexlocktime` on
        # Linux, 132 ms for `mlt`, against 12.5 and 1.5 ms by the initials). The
        # index holds the fold, so the GLOB reads no row; a row is fetched for its
        # name only when it matched (m013: `contaner_of` on Linux 5.7 -> 0.9 ms)
        f"SELECT n.name, w.ini FROM (SELECT rowid AS id, ini FROM names"
        f" INDEXED BY idx_names_ini_fold WHERE repository_id = ? AND ini IN ({marks})"
        " AND fold GLOB ? LIMIT ?) AS w CROSS JOIN names AS n ON n.id = w.id",
        (repo, *keys, subsequence_glob(folded), limit),
    ).fetchall()
    rows.sort(key=lambda r: -len(r[1]))  # (stable: the index's order among equals)
    return [name for name, _ in rows]


def names_wildcard(conn: sqlite3.Connection, repo: int, raw: str, limit: int) -> list[str]:
    """`a.b` with `.` as any one character, matched on lower-cased names (the retry
    for a dotted query no scope answered)."""
    low = raw.lower()
    head = low.split(".", 1)[0]
    pattern = "".join("?" if c == "." else glob_escape(c) for c in low)
    rows = conn.execute(
        "SELECT DISTINCT s.name FROM symbols s WHERE s.repository_id = ?"
        " AND s.name_lower >= ? AND s.name_lower < ? AND s.name_lower GLOB ? LIMIT ?",
        (repo, head, head + _TOP, pattern, limit),
    ).fetchall()
    return [r[0] for r in rows]


def package_split_rows(
    conn: sqlite3.Connection, repo: int, head: str, tail: str, limit: int, *, whole: bool = False
) -> list[Row]:
    """Definitions whose name starts with `tail` in files under a directory, or in a
    file, whose name starts with `head`: `bufscanner` → bufio/…/Scanner. Driven by
    the name index (the range of `tail`), the path checked per row: a scan of every
    file path instead costs ~45 ms on Linux's 60k files. With `whole`, the name is
    `tail` itself (two letters start too many names: Go std's `re` range took ~10 ms)."""
    where = "s.name_lower = ?" if whole else "s.name_lower >= ? AND s.name_lower < ?"
    keys = (tail,) if whole else (tail, tail + _TOP)
    return _rows(
        conn.execute(
            f"{_ROW_SQL} WHERE s.repository_id = ? AND {where}"
            " AND '/' || lower(f.path) LIKE ? ESCAPE '\\' LIMIT ?",
            (repo, *keys, f"%/{_like_escape(head)}%", limit),
        )
    )


def files_matching(
    conn: sqlite3.Connection, repo: int, text: str, limit: int
) -> list[tuple[int, str, str | None]]:
    """Files whose repo-relative path contains `text` (the path layer): (id, path, language)."""
    like = "%" + _like_escape(text.lower()) + "%"
    return [
        (int(r[0]), str(r[1]), r[2])
        for r in conn.execute(
            "SELECT id, path, language FROM files WHERE repository_id = ?"
            " AND lower(path) LIKE ? ESCAPE '\\' LIMIT ?",
            (repo, like, limit),
        )
    ]


def files_defining(conn: sqlite3.Connection, repo: int, name_lower: str) -> set[int]:
    """Files that declare a type or module of this name (where a scope is declared;
    a variable called `path` does not make its file the home of `os.path`)."""
    return {
        int(r[0])
        for r in conn.execute(
            "SELECT DISTINCT file_id FROM symbols WHERE repository_id = ? AND name_lower = ?"
            " AND kind IN ('class', 'struct', 'interface', 'trait', 'module', 'type', 'enum',"
            " 'union') LIMIT 200",
            (repo, name_lower),
        )
    }
