"""Ranking one query's candidate pool: what the index says about it (compiled
twins, scope retries, a path query's files) and each row's boosts, around
core/scoring/rank.py's Ranker.

The pipeline's per-query run (search/layers.py) owns retrieval and holds a
PoolRanking, which makes the Hits of what it ranks. Imports the stdlib,
rq_engine.core, rq_engine.search, the store's reference counts (store/refs.py)
and the plugin registry's pure-data helpers only.
"""

from __future__ import annotations

from rq_engine.core.paths import JS_SUFFIXES, TS_DECLARATION_SUFFIXES
from rq_engine.core.query import Query, split_scope
from rq_engine.core.scoring import (
    Boosts,
    NameMatch,
    Scored,
    ceiling,
    constructor_owner_feature,
    match_exact_prefix,
    path_query_features,
    qualifier_feature,
    wildcard_feature,
)
from rq_engine.core.scoring.rank import (
    PoolEntry,
    RankContext,
    Ranked,
    Ranker,
    Row,
    fallback,
    rank_entries,
)
from rq_engine.lang.registry import qualify
from rq_engine.search import retrieval as rt
from rq_engine.search.types import Hit, Score
from rq_engine.store import refs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rq_engine.search.branch import Probe
    from rq_engine.search.pipeline import Searcher

EXACT_ROWS = 2000  # rows of names equal to the query (`__init__` has ~10k in CPython)
PREFIX_NAMES = 300  # distinct names per prefix range
PREFIX_ROWS = 1000  # rows of those names, shortest names first (~15 µs a row scored)
_MEMBERS = frozenset(("method", "field"))
_NONE = (0, 0)


def _files(named: dict[str, int], r: Row) -> int:
    """How many files name `r` by a qualifier it answers to (see _prepare_references)."""
    quals = [split_scope(r.parent)[0][-1]] if r.parent else []
    if r.kind not in _MEMBERS:  # a method is named through its type, not its package
        # its module (the file's stem) and every package above it: a package re-exports
        # what its files define (`from django.db.models import CharField` names
        # django/db/models/fields/__init__.py's; `z.string` from "zod/v4", v4/classic's)
        *dirs, base = r.path.split("/")
        quals += (base.split(".", 1)[0], *dirs)
    return max((named.get(q, 0) for q in quals), default=0)


class PoolRanking:
    """The index's half of ranking one query's pool: what core/scoring/rank.py's
    `Ranker` cannot know without reading it (JavaScript compiled from a TypeScript
    twin, the retries when nothing answered the scope, a path query's files) and
    each row's boosts. The pipeline's run owns retrieval and hands this its pool
    (shared, filled as the layers run); the ranking itself is `self.ranker`'s, a
    plain function of the pool, the query and a public `RankContext`."""

    def __init__(
        self,
        s: Searcher,
        q: Query,
        limit: int,
        pool: dict[int, PoolEntry],
        scope_files: set[int],
        *,
        ctor: bool,
        now: float,
        branch: Probe | None,
        refetch: Callable[[], None],
    ) -> None:
        self.s = s
        self.q = q
        self.limit = limit
        self.pool = pool  # the run's: every layer adds to it
        self.ctor = ctor
        self.now = now  # unix seconds, read once per query: every candidate ages against it
        self.branch = branch  # the current checkout's branch files (None: not asked)
        # the scope retries need every definition of the leaf, not only the rows the
        # scope could answer: the run's retrieval reads them into the pool
        self.refetch_unrestricted = refetch
        self.context = RankContext(
            current_repo=s.repo_id,
            scope_files=scope_files,
            constructor=ctor,
            compiled={},
            projects=s.projects,
            boosts=self.boosts,
            references=self.references,
        )
        self._named: dict[tuple[int, str], dict[str, int]] = {}  # (repo, name) -> counts
        self._referenced: dict[int, tuple[int, int]] = {}  # row id -> (files, best)
        self._pool_seen = 0
        self._group_sizes: dict[tuple[int, str], int] = {}  # (repo, name) -> rows last counted
        self.ranker = Ranker(q, self.context)

    def scope_retries(self) -> list[Hit]:
        """No candidate answered the scope: constructor owner, `.` wildcard, scope typo,
        then the leaf alone with a penalty — in that order."""
        if self.ctor:
            hits = self.constructor_owner()
            if hits:
                return hits
        wild = self.wildcard_hits()
        if wild:
            return wild
        # the scoped fetch read only rows the scope could answer; the typo retry
        # and the leaf-alone fallback need every definition of the leaf
        self.refetch_unrestricted()
        hits, _ = self.ranked(strict=False)
        if hits or self.ctor:
            # a constructor of nothing the scope names is no answer (`hwia.new`
            # must not list every `initialize`)
            return hits
        return self._ranked_fallback()

    def wildcard_hits(self) -> list[Hit]:
        """A `.` query's names with `.` read as any one character (`log.info` →
        log_info, `wildcard`); none for a query without a `.`."""
        q = self.q
        if not q.dotted:
            return []
        wild: list[PoolEntry] = []
        for rid in self.s.repo_ids:
            names = rt.names_wildcard(self.s.conn, rid, q.raw, PREFIX_NAMES)
            lowers = [n.lower() for n in names]
            for row in rt.symbols_named(self.s.conn, rid, lowers, PREFIX_ROWS):
                m = match_exact_prefix(row.name, row.name)
                if m is not None:
                    wild.append(PoolEntry(row, m, "fuzzy", wildcard_feature()))
        return self._rank_entries(wild, q.unscoped(), None) if wild else []

    def constructor_owner(self) -> list[Hit]:
        q = self.q
        owner = q.scope[-1]
        outer = q.scope[:-1]
        entries: list[PoolEntry] = []
        for rid in self.s.repo_ids:
            for row in rt.symbols_named(self.s.conn, rid, [owner.lower()], EXACT_ROWS):
                if row.kind not in ("class", "struct", "module", "type", "interface", "enum"):
                    continue
                if outer and qualifier_feature(outer, row.parent, row.path, typo=False) is None:
                    continue
                m = match_exact_prefix(owner, row.name)
                if m is None or m.kind != "exact":
                    continue
                entries.append(PoolEntry(row, m, "exact", constructor_owner_feature()))
        oq = Query(raw=q.raw, leaf=owner)
        return self._rank_entries(entries, oq, [])

    # ------------------------------------------------------------------ ranking

    def _compiled_extra(self, entries: list[PoolEntry]) -> None:
        """JavaScript beside its own declaration file (`x.js` + `x.d.ts`) is compiled
        output of TypeScript sources: it takes the generated-copy penalty. One
        indexed lookup per repository per batch of new paths."""
        todo: dict[int, dict[str, list[str]]] = {}
        for e in entries:
            p = e.row.path
            if p in self.context.compiled or not p.endswith(JS_SUFFIXES):
                continue
            stem = p.rsplit(".", 1)[0]
            for ext in TS_DECLARATION_SUFFIXES:
                todo.setdefault(e.row.repository_id, {}).setdefault(stem + ext, []).append(p)
            self.context.compiled[p] = False
        for rid, decl in todo.items():
            marks = ",".join("?" * len(decl))
            for (found,) in self.s.conn.execute(
                f"SELECT path FROM files WHERE repository_id = ? AND path IN ({marks})",
                (rid, *decl),
            ):
                for js in decl[found]:
                    self.context.compiled[js] = True

    def references(self, r: Row) -> tuple[int, int]:
        """(files naming the row by its qualifier, the most any row of its name in the
        pool has): the canonical prior's facts (_prepare_references)."""
        return self._referenced.get(r.id, _NONE)

    def _prepare_references(self) -> None:
        """For every name two or more rows of the pool share, each row's count: how many
        files name it by a qualifier it answers to — its parent's last name, and unless
        it is a method or field (named through its type) its file's stem and the
        directories above it (`io.Reader` for src/io/io.go, `ActiveRecord::Base`,
        `models.Model` for django/db/models/base.py). One indexed read for the pool's new names;
        nothing for a name with one definition. Scores memoized before a better-named
        copy arrived are dropped."""
        if self.q.scope or len(self.pool) == self._pool_seen:
            return
        self._pool_seen = len(self.pool)
        groups: dict[tuple[int, str], list[Row]] = {}
        for e in self.pool.values():
            groups.setdefault((e.row.repository_id, e.row.name), []).append(e.row)
        todo: dict[int, list[str]] = {}
        for (rid, name), rows in groups.items():
            if len(rows) > 1 and (rid, name) not in self._named:
                todo.setdefault(rid, []).append(name)
        for rid, names in todo.items():
            found = refs.counts(self.s.conn, rid, names)
            for name in names:
                self._named[(rid, name)] = found.get(name, {})
        changed: list[int] = []
        for key, rows in groups.items():
            # the pool only grows: a name with as many rows as last time has the same
            # rows (a crowded name's 2,000 are not counted again for one new name)
            if self._group_sizes.get(key) == len(rows):
                continue
            self._group_sizes[key] = len(rows)
            named = self._named.get(key)
            if not named or len(rows) < 2:
                continue
            got = {r.id: _files(named, r) for r in rows}
            best = max(got.values())
            for row_id, files in got.items():
                if self._referenced.get(row_id, _NONE) != (files, best):
                    self._referenced[row_id] = (files, best)
                    changed.append(row_id)
        if changed:
            self.ranker.forget(changed)

    def boosts(self, r: Row) -> Boosts:
        """Recency from the stored touch time (no stat, no git here); when several
        repositories are searched, whether the row is in the one searched from; the
        branch's mark on the row's file (current repository only); the anchor's
        enclosing levels and proximity (its repository only)."""
        s = self.s
        mark = ""
        if self.branch is not None and r.repository_id == s.repo_id:
            mark = self.branch.result().mark(r.path)
        levels, same_file, steps = 0, False, None
        scope = s.anchor_scope()
        if scope is not None:
            levels, same_file, steps = scope.facts(r.repository_id, r.path, r.parent)
        return Boosts(
            age_days=(self.now - r.touched) / 86400.0 if r.touched else None,
            current_repo=len(s.repo_ids) > 1 and r.repository_id == s.repo_id,
            branch=mark,
            enclosing=levels,
            anchor_file=same_file,
            anchor_steps=steps,
        )

    def ranked(self, *, strict: bool) -> tuple[list[Hit], bool]:
        """The pool ranked, its top `limit` as hits, and whether the answer is strong
        (the confidence gate: no later layer could change the top)."""
        self._prepare_references()
        self._compiled_extra(list(self.pool.values()))
        ranked, strong = self.ranker.rank(self.pool.values(), strict=strict)
        return self._top(ranked), strong

    def floor(self) -> float | None:
        """What a match's own points must reach for any row of it to place in the top
        `limit` of the pool as it stands: the `limit`-th score less the most any row
        could add to its match (core.scoring.ceiling, with each boost at its strongest
        this search could give). None while fewer rows answer, or no bound is known.
        A tie could still place (the order's later keys), so a match at the floor is
        read."""
        if len(self.pool) < self.limit:
            return None
        top = ceiling(self.q, self._strongest_boosts())
        if top is None:
            return None
        self._prepare_references()
        self._compiled_extra(list(self.pool.values()))
        ranked, _ = self.ranker.rank(self.pool.values(), strict=True)
        if len(ranked) < self.limit:
            return None
        return ranked[self.limit - 1][0].score.total - top

    def _strongest_boosts(self) -> Boosts:
        """Every boost `boosts` could give a row of this search, at its most: today's
        file, the branch's own file (once the branch is asked), the anchor's file and
        every level of its scope (with an anchor), the current repository (with others)."""
        anchored = self.s.anchor_scope() is not None
        return Boosts(
            age_days=0.0,
            current_repo=len(self.s.repo_ids) > 1,
            branch="file" if self.branch is not None else "",
            enclosing=1 << 20 if anchored else 0,
            anchor_file=anchored,
            anchor_steps=0 if anchored else None,
        )

    def literal_count(self) -> int:
        """Exact/prefix entries that answer the query (scope included)."""
        self._prepare_references()
        return self.ranker.literal_count(self.pool.values())

    def _ranked_fallback(self) -> list[Hit]:
        return self._top(fallback(self.pool.values(), self.q, self.context))

    def _rank_entries(
        self, entries: list[PoolEntry], q: Query, qualifier: list[tuple[str, float]] | None
    ) -> list[Hit]:
        self._compiled_extra(entries)
        return self._top(rank_entries(entries, q, self.context, qualifier))

    def _top(self, ranked: list[Ranked]) -> list[Hit]:
        return [self._hit(e, sc) for sc, e in ranked[: self.limit]]

    def _hit(self, entry: PoolEntry, scored: Scored) -> Hit:
        r = entry.row
        return Hit(
            root=self.s.roots.get(r.repository_id, ""),
            path=r.path,
            line=r.line,
            end_line=r.end_line,
            name=r.name,
            qualified=qualify(r.language, r.parent, r.name, r.kind),
            kind=r.kind,
            language=r.language,
            repository=self.s.idents.get(r.repository_id, ""),
            score=scored.score,
            layer=entry.layer,
            positions=scored.match.positions,
            visibility=r.visibility,
            parent=r.parent,
        )

    def path_layer(self) -> list[Hit]:
        """A path query's answer: the files whose path matches, best first."""
        q = self.q
        text = q.raw.strip("/")
        hits: list[Hit] = []
        for rid in self.s.repo_ids:
            for fid, path, lang in rt.files_matching(self.s.conn, rid, text, 200):
                base = path.rsplit("/", 1)[-1]
                parts = path_query_features(path, text)
                del fid
                hits.append(
                    Hit(
                        root=self.s.roots.get(rid, ""),
                        path=path,
                        line=1,
                        end_line=None,
                        name=base,
                        qualified=path,
                        kind="file",
                        language=lang or "",
                        repository=self.s.idents.get(rid, ""),
                        score=Score.of(parts),
                        layer="path",
                    )
                )
        hits.sort(key=lambda h: (-h.score.total, h.path))
        return hits[: self.limit]


def match_quality(m: NameMatch) -> float:
    """How good a name match is (its parts' sum): a pool keeps each row's best."""
    return sum(v for _, v in m.parts)


def project_name(identity: str) -> str:
    """`github.com/Effect-TS/effect` → `effect`; `local:/src/foo` → `foo`."""
    return identity.rstrip("/").rsplit("/", 1)[-1]
