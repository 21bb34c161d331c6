"""One query's pass through the staged layers: the pool, every row fetch, the batches.

Layer 1 exact/prefix (name index) → confidence gate → layer 2 fuzzy (first-letter
windows, initials, skeleton and package-prefixed names: search/fuzzy.py;
substring FTS) and the near-miss typo retry (query-side candidates:
keys.typo_candidates; two new letters away, names by their start or end:
nearmiss.names_typo_far_*, when nearmiss.far_could_join) → scope retries → layer
3 paths. The run owns the pool and every row fetch; the layers' helpers are plain
functions of what they need. Each batch is the full ranked list known so far
(ranking, and the hits it makes, live in search/rank.py). A cancelled run raises
Cancelled between stages; Searcher.search (search/pipeline.py) turns that into
the end of its stream.

Imports the stdlib, rq_engine.core, rq_engine.search and the plugin registry's pure
data only (as pipeline.py): no tree-sitter, textual, rich or mcp.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from rq_engine.core.query import Query, asks_constructor
from rq_engine.core.scoring import (
    MAX_FUZZY_LEAF,
    NameMatch,
    constructor_feature,
    match_exact_prefix,
    match_fuzzy,
    match_typo,
    match_typo_prefix,
    typo_edits,
)
from rq_engine.core.scoring.rank import PoolEntry, Row
from rq_engine.lang.registry import CLASS_NAME
from rq_engine.search import retrieval as rt
from rq_engine.search.rank import (
    EXACT_ROWS,
    PREFIX_NAMES,
    PREFIX_ROWS,
    PoolRanking,
    match_quality,
)
from rq_engine.search.types import Batch, CancelToken, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.search.pipeline import Searcher

# Caps on what one query decodes and scores in Python (~5 µs a row scored); the
# fuzzy layer's names are search/fuzzy.py's.
TYPO_NAMES = 300
ROWS_PER_FUZZY = 2000


class Run:
    """One query's pass through the layers (kept apart so Searcher stays reusable)."""

    def __init__(
        self,
        s: Searcher,
        q: Query,
        limit: int,
        cancel: CancelToken | None,
        *,
        literal_only: bool = False,
    ) -> None:
        self.s = s
        self.q = q
        self.limit = limit
        self.cancel = cancel
        # only exact and prefix matches can matter (Searcher.search's second reading of
        # a kind word, when the first filled the page with literal matches)
        self.literal_only = literal_only
        self.t0 = time.perf_counter()
        self.now = time.time()
        # started before layer 1 reads anything; waited for (bounded) at the first score
        self.branch = (
            s.branch_probe() if q.leaf and not q.looks_like_path and s.repo_id is not None else None
        )
        self.pool: dict[int, PoolEntry] = {}
        # names already fetched, per repository (`--all-repos` reads each one's own)
        self.seen_names: dict[int, set[str]] = {}
        # per repository, the names whose rows a prefix read could bring are all in the
        # pool already, by the exact read (_read_whole)
        self.exact_read: dict[int, set[str]] = {}
        # the files a boost can lift a row in, per repository (_context_paths)
        self.context_paths: dict[int, list[str]] = {}
        self.scope_files: set[int] = set()  # files declaring the scope's last name
        self.path_files: set[int] = set()  # files whose path names it
        self.ctor = asks_constructor(q)
        self.unrestricted = False  # scoped fetches read only rows the scope could answer
        self.ranking = PoolRanking(
            s,
            q,
            limit,
            self.pool,
            self.scope_files,
            ctor=self.ctor,
            now=self.now,
            branch=self.branch,
            refetch=self._refetch_unrestricted,
        )

    # ------------------------------------------------------------------ stages

    def stages(self) -> Iterator[Batch]:
        q = self.q
        if not q.leaf or not self.s.repo_ids:
            yield self._batch([], "exact", final=True)
            return
        if q.looks_like_path:
            hits = self.ranking.path_layer()
            yield self._batch(hits, "path", final=True)
            return
        if q.scope:
            for rid in self.s.repo_ids:
                if len(q.scope) == 1:  # `os.path` names a module chain, not class Path
                    self.scope_files |= rt.files_defining(self.s.conn, rid, q.scope[-1].lower())
                self.path_files |= rt.files_for_scope(self.s.conn, rid, q.scope[-1])
        self._layer_exact_prefix()
        hits, strong = self.ranking.ranked(strict=True)
        literal = self.ranking.literal_count()
        # The confidence gate: an exact match in the current repository outranks
        # anything the fuzzy layers could add (bands), and so does a full page of
        # exact/prefix matches; either way the later layers cannot change the top.
        if strong or literal >= self.limit or self.literal_only:
            yield self._batch(hits, "exact", final=True)
            return
        if hits:
            yield self._batch(hits, "prefix")
        self._check()
        if self.ctor and not literal:
            # `Foo.new` and Foo declares no constructor: the class itself (the seed's
            # `constructor_owner`), before any abbreviation of `new` inside Foo
            # (`next_week`), which the fuzzy layer would otherwise put first
            owner = self.ranking.constructor_owner()
            if owner:
                yield self._batch(owner, "fuzzy", final=True)
                return
        leaf_literal = any(e.match.kind in ("exact", "prefix") for e in self.pool.values())
        # A scoped query whose leaf only starts names outside the scope
        # (`strings.Buildr`: BuildRace, never strings.Builder) may still have its
        # answer inside it, abbreviated or mistyped: the fuzzy and typo layers run
        # as for a leaf with no literal match, before the scope retries. A leaf that
        # is a whole name, spelled out (not `op_N` for `Opn`), is taken as typed:
        # `Request::input` is the trait's `input` the class uses (the leaf alone),
        # not the class's getInputSource. Nor for what the retries answer first: a
        # constructor (`Foo.new`: the class itself, `constructor_owner`) and a `.`
        # read as any character (`log.info` → log_info, an exact name).
        outside_only = (
            bool(q.scope)
            and leaf_literal
            and not literal
            and not self.ctor
            and not any(e.row.name.lower() == q.leaf_lower for e in self.pool.values())
        )
        wild: list[Hit] = self.ranking.wildcard_hits() if outside_only else []
        if wild:
            outside_only = False
        if not (q.scope and leaf_literal) or outside_only:
            # a scoped query whose leaf matched literally in scope is decided by its
            # scope retries over those rows; fuzzy leaves would only rank below them
            self._layer_fuzzy(literal)
        if not literal and (not leaf_literal or outside_only):
            self._layer_typo()
        hits, _ = self.ranking.ranked(strict=True)
        if not hits and q.scope:
            hits = wild or self.ranking.scope_retries()
        yield self._batch(hits, "fuzzy", final=True)

    def _batch(self, hits: list[Hit], layer: str, *, final: bool = False) -> Batch:
        return Batch(
            hits=hits,
            layer=layer,
            final=final,
            state=self.s.state,
            elapsed_ms=round((time.perf_counter() - self.t0) * 1000, 2),
        )

    def _check(self) -> None:
        if self.cancel is not None:
            self.cancel.check()

    # ------------------------------------------------------------------ layers

    def _add(
        self,
        row: Row,
        match: NameMatch | None,
        layer: str,
        extra: list[tuple[str, float]] | None = None,
    ) -> None:
        if match is None:
            return
        old = self.pool.get(row.id)
        if old is not None and match_quality(old.match) >= match_quality(match):
            return
        self.pool[row.id] = PoolEntry(row, match, layer, extra or [])

    def _layer_exact_prefix(self) -> None:
        q, conn = self.q, self.s.conn
        leaf = q.leaf
        for rid in self.s.repo_ids:
            lowers = [q.leaf_lower]
            if q.words:  # a name with a space of its own (C++'s `operator bool`)
                lowers.append(q.words.lower())
            if self.ctor:
                lowers += list(set(self._ctor_names()))
            rows = self._rows_named(rid, lowers, EXACT_ROWS)
            if not q.scope:
                self.exact_read[rid] = _read_whole(rows, lowers[: 2 if q.words else 1])
            # one match a spelling: a crowded name's rows share it (2,000 of `list`)
            matched: dict[tuple[str, str], NameMatch | None] = {}
            for row in rows:
                spaced = q.words and row.name.lower() == lowers[1]
                self._add_ctor_aware(row, q.words if spaced else leaf, matched)
        for rid in self.s.repo_ids:
            names = rt.names_fold_prefix(conn, rid, q.leaf_fold, PREFIX_NAMES)
            self._fetch_names(
                rid,
                names,
                lambda n: match_exact_prefix(leaf, n),
                "prefix",
                PREFIX_ROWS,
                placing=True,
            )

    def _rows_named(
        self, rid: int, lowers: list[str], cap: int, keep: set[str] | None = None
    ) -> list[Row]:
        """Definitions with these names; for a scoped query, those the scope could
        answer first, every one only when none could (the retries need them). A read
        the cap cut short also takes the names' rows in the files the boosts favour
        (_context_paths): the cap keeps the first rows in index order, and the
        `flags` field of the struct beside the anchor, or in the file the branch
        changed, is as likely the 5,000th as the first."""
        conn = self.s.conn
        if self.q.scope and not self.unrestricted:
            rows = rt.symbols_named_in_scope(
                conn, rid, lowers, self.q.scope[-1], self.scope_files | self.path_files, cap
            )
            if rows:
                return rows
        rows = rt.symbols_named(conn, rid, lowers, cap, keep)
        # (with `keep`, the read of every name is what the cap cut; only the kept
        # names' rows can be new and place, from the boosted files too)
        cut = len(rows) >= cap if keep is None else rt.count_named(conn, rid, lowers) >= cap
        if cut:
            paths = self._context_paths(rid)
            if paths:
                have = {r.id for r in rows}
                rows += [
                    r
                    for r in rt.symbols_named_in_files(
                        conn, rid, lowers if keep is None else sorted(keep), paths
                    )
                    if r.id not in have
                ]
        return rows

    def _context_paths(self, rid: int) -> list[str]:
        """The files of `rid` a boost can lift a row in, by the boost's strength: the
        anchor's file (proximity 90), those beside it (60), the files the feature
        branch changed (50; waiting for its answer as scoring would), the files being
        edited (the index's held files: recency, at most 5). The first CONTEXT_FILES
        are read. Once a run."""
        got = self.context_paths.get(rid)
        if got is not None:
            return got
        s = self.s
        paths: list[str] = []
        scope = s.anchor_scope()
        if scope is not None and scope.repository_id == rid:
            paths.append(scope.path)
            paths += rt.files_in_directory(s.conn, rid, scope.path, rt.CONTEXT_FILES)
        if rid == s.repo_id:
            if self.branch is not None:
                bf = self.branch.result()
                if bf.state == "on":  # (a long branch's first files by path, not all sorted)
                    from heapq import nsmallest

                    paths += nsmallest(rt.CONTEXT_FILES, bf.files)
            from rq_engine.index.fresh import held_files  # (a read the cap cut short)

            paths += sorted(held_files(s.conn, s.root))
        self.context_paths[rid] = out = list(dict.fromkeys(paths))
        return out

    def _refetch_unrestricted(self) -> None:
        if self.unrestricted:
            return
        self.unrestricted = True
        self.seen_names.clear()
        self._layer_exact_prefix()

    def _ctor_names(self) -> list[str]:
        # CLASS_NAME: the language names a constructor after its class (Java)
        own = self.q.scope[-1].lower()
        return [self.q.leaf_lower, *(own if n == CLASS_NAME else n for n in self.s._ctors.values())]

    def _add_ctor_aware(
        self, row: Row, leaf: str, matched: dict[tuple[str, str], NameMatch | None]
    ) -> None:
        key = (leaf, row.name)
        if key not in matched:
            matched[key] = match_exact_prefix(leaf, row.name)
        m = matched[key]
        if m is not None:
            self._add(row, m, "exact")
            return
        if not self.ctor:
            return
        ctor = self.s._ctors.get(row.language)
        if ctor == CLASS_NAME:  # a method named after its class (its parent: the qualifier)
            named = row.kind == "method" and row.name.lower() == self.q.scope[-1].lower()
        else:
            named = ctor == row.name
        if named:
            m = match_exact_prefix(row.name, row.name)
            self._add(row, m, "exact", constructor_feature())

    def _fetch_names(
        self,
        rid: int,
        names: list[str],
        matcher: Callable[[str], NameMatch | None],
        layer: str,
        cap: int,
        *,
        again: bool = False,
        placing: bool = False,
    ) -> None:
        """Rows of the names `matcher` takes, into the pool. A name an earlier layer
        already tried is skipped, unless `again` (a matcher that takes names the
        others refused: a near miss of a name's start). With `placing` (layer 1's
        prefix read), nothing is read when nothing it could read is new and could
        place in the page the pool already fills (D47): every name is one the exact
        read took (the same rows, already in the pool) or one whose match could not
        place a row (PoolRanking.floor) — the longer names of a prefix once a
        crowded name's exact rows fill the page (`list` in Linux: 2,494 definitions;
        ~1,000 prefix rows unread). Otherwise every name is read as without it: the
        row cap keeps the first rows of all of them, so reading fewer names would
        let in rows the cap leaves out, and the page would depend on its own size.
        Only where nothing but the page is read off the pool after: the later
        layers' pool-wide rules (D14's evidence, the near misses' "could join") see
        every name."""
        seen = self.seen_names.setdefault(rid, set())
        fresh = names if again else [n for n in names if n not in seen]
        if not fresh:
            return
        matches: dict[str, NameMatch] = {}
        for n in fresh:
            seen.add(n)
            m = matcher(n)
            if m is not None:
                matches[n] = m
        if not matches:
            return
        # shortest names first: with the row cap reached, what is left out are
        # the longer completions, which rank lower
        lowers = sorted({n.lower() for n in matches}, key=lambda n: (len(n), n))
        keep = self._could_place(rid, matches) if placing else None
        if keep is not None and not keep:
            return
        rows = self._rows_named(rid, lowers, cap, keep)
        for row in rows:
            m = matches.get(row.name)
            if m is not None:
                self._add(row, m, layer)

    def _could_place(self, rid: int, matches: dict[str, NameMatch]) -> set[str] | None:
        """The lower-cased names whose rows could be new to the pool and place in its
        page: not one the exact read took whole (_read_whole), nor one whose match
        stays under the floor (PoolRanking.floor). None (read every name, the plain
        way) while the pool has no floor: an ordinary query's prefix read stays one
        statement a chunk."""
        taken = self.exact_read.get(rid, set())
        if all(n.lower() in taken for n in matches):
            return set()
        floor = self.ranking.floor()
        if floor is None:
            return None
        return {
            n.lower() for n, m in matches.items() if n.lower() not in taken and _most(m) >= floor
        }

    def _layer_fuzzy(self, literal: int) -> None:
        # (imported here: an exact hit, the common `rq -q`, never gets this far)
        from rq_engine.search import fuzzy
        from rq_engine.search.substring import fts_substring

        q, conn = self.q, self.s.conn
        leaf, qf = q.leaf, q.leaf_fold
        if len(qf) < 2 or len(qf) > MAX_FUZZY_LEAF:
            return  # (longer: no name can match in order, so no candidate is read)
        match_cap, sub_cap = fuzzy.caps(self.limit, literal)
        for rid in self.s.repo_ids:
            self._check()
            by_name = fuzzy.matched_names(conn, rid, q, self.seen_names.get(rid, ()), match_cap)
            self._fetch_names(rid, list(by_name), by_name.get, "fuzzy", ROWS_PER_FUZZY)
            self._check()
            for row in fts_substring(conn, rid, qf, sub_cap):
                if row.id in self.pool:
                    continue
                self._add(row, match_fuzzy(leaf, row.name), "fuzzy")
            self._check()
            if not literal:  # ranks below any literal match: only worth it without one
                for row, m in fuzzy.package_prefixed(conn, rid, q, self.pool):
                    self._add(row, m, "fuzzy")

    def _layer_typo(self) -> None:
        q = self.q
        if not typo_edits(len(q.leaf_fold)):
            return
        from rq_engine.search import nearmiss as nm  # (imported here, as in _layer_fuzzy)

        for rid in self.s.repo_ids:
            self._check()
            names = nm.names_typo(self.s.conn, rid, q.leaf_fold, TYPO_NAMES)
            self._fetch_names(rid, names, lambda n: match_typo(q.leaf, n), "typo", ROWS_PER_FUZZY)
        # two new letters (typo_candidates stops at one): by the name's start, and
        # only when that found nothing, by its end
        for far in (nm.names_typo_far_start, nm.names_typo_far_end):
            if not nm.far_could_join(q.leaf_fold, self.pool.values()):
                break
            for rid in self.s.repo_ids:
                self._check()
                names = far(self.s.conn, rid, q.leaf_fold, TYPO_NAMES)
                self._fetch_names(
                    rid, names, lambda n: match_typo(q.leaf, n), "typo", ROWS_PER_FUZZY
                )
        # no whole name is near: a name whose start is (a query typed with a slip,
        # not finished yet)
        if nm.prefix_could_join(q.leaf_fold, self.pool.values()):
            for rid in self.s.repo_ids:
                self._check()
                names = nm.names_typo_prefix(self.s.conn, rid, q.leaf_fold, TYPO_NAMES)
                self._fetch_names(
                    rid,
                    names,
                    lambda n: match_typo_prefix(q.leaf, n),
                    "typo",
                    ROWS_PER_FUZZY,
                    again=True,
                )


def _read_whole(rows: list[Row], lowers: list[str]) -> set[str]:
    """Of the names an unscoped exact read asked for (each row added to the pool as an
    exact match), those a prefix read could bring no new row of: every row of it, when
    the read was not cut short, or at least PREFIX_ROWS of them, the most a prefix read
    takes — both reads keep a name's rows in the same order (fields last, then index
    order), so a prefix read's are the first of the exact read's. The rows a cut read
    adds from the boosted files (_context_paths) come after EXACT_ROWS and are not
    counted."""
    if len(rows) < EXACT_ROWS:
        return set(lowers)
    got: dict[str, int] = {}
    for r in rows[:EXACT_ROWS]:
        low = r.name.lower()
        got[low] = got.get(low, 0) + 1
    return {low for low in lowers if got.get(low, 0) >= PREFIX_ROWS}


def _most(m: NameMatch) -> float:
    """The most a match's own parts can give (a spaced query drops its `separators`)."""
    return sum(v for _, v in m.parts if v > 0)


__all__ = ["ROWS_PER_FUZZY", "TYPO_NAMES", "Run"]
