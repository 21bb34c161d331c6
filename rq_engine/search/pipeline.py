"""The staged search pipeline: a stream of ranked result batches, cancellable between stages.

Layer 1 exact/prefix (name index) → confidence gate → layer 2 fuzzy (skeleton,
first-letter scan, substring FTS, package-prefixed names) and the near-miss
typo retry (deletion keys) → scope retries → layer 3 paths. Each batch is the
full ranked list known so far. Cancellation: `search` never raises on cancel;
it stops yielding (the consumer sees the generator end without a final batch).

Imports the stdlib, rq_engine.core, rq_engine.search and the plugin registry's
pure-data helpers only: no tree-sitter, textual, rich or mcp.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rq_engine.core.identity import checkout_for
from rq_engine.core.query import Query, fold, parse
from rq_engine.core.scoring import (
    WEIGHTS,
    Candidate,
    NameMatch,
    Scored,
    match_exact_prefix,
    match_fuzzy,
    match_typo,
    qualifier_feature,
    score,
    skeleton,
)
from rq_engine.lang.registry import constructor_names, qualify
from rq_engine.search import retrieval as rt
from rq_engine.search.retrieval import Row
from rq_engine.search.types import Batch, Cancelled, CancelToken, Hit, Score

# Caps on what one query decodes and scores in Python (~5 µs a row scored).
EXACT_ROWS = 4000  # rows of names equal to the query (`__init__` has ~10k in CPython)
PREFIX_NAMES = 300  # distinct names per prefix range
PREFIX_ROWS = 3000
FUZZY_NAMES = 400  # names from the first-letter scan
SKELETON_NAMES = 200
SUBSTRING_ROWS = 400
TYPO_NAMES = 300
FUZZY_MATCH = 250  # of those, the shortest matched in Python
FUZZY_KEEP = 80  # best-matching fuzzy names whose definitions are fetched
ROWS_PER_FUZZY = 2000

_JS_EXTS = (".js", ".cjs", ".mjs")
_CTOR_ALIASES = frozenset({"new", "__init__", "constructor", "initialize"})


@dataclass
class _Entry:
    row: Row
    match: NameMatch
    layer: str
    extra: list[tuple[str, float]] = field(default_factory=list)


class Searcher:
    """Search the index from a working directory: its repository by default, or all.

    `state` is the current repository's coverage (never | warming | complete);
    `repository` its identity, None when the directory is not indexed.
    """

    def __init__(self, conn: sqlite3.Connection, cwd: Path, *, all_repos: bool = False) -> None:
        self.conn = conn
        self.cwd = Path(os.path.abspath(cwd))
        self.all_repos = all_repos
        rt.register(conn)
        co = checkout_for(self.cwd)
        self.checkout = co
        row = conn.execute(
            "SELECT c.repository_id, r.identity FROM checkouts c"
            " JOIN repositories r ON r.id = c.repository_id WHERE c.root_path = ?",
            (str(co.root),),
        ).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT id, identity FROM repositories WHERE identity = ?", (co.identity,)
            ).fetchone()
        self.repo_id: int | None = int(row[0]) if row else None
        self.repository: str | None = str(row[1]) if row else None
        self.state = "never"
        if self.repo_id is not None:
            st = conn.execute(
                "SELECT status FROM coverage WHERE repository_id = ? AND scope = 'full'",
                (self.repo_id,),
            ).fetchone()
            self.state = str(st[0]) if st else "warming"
        self._roots: dict[int, str] = {}
        self._idents: dict[int, str] = {}
        if self.repo_id is not None:
            self._roots[self.repo_id] = str(co.root)
            self._idents[self.repo_id] = self.repository or ""
        if all_repos:
            for rid, ident, root in conn.execute(
                "SELECT r.id, r.identity, MIN(c.root_path) FROM repositories r"
                " JOIN checkouts c ON c.repository_id = r.id GROUP BY r.id"
            ):
                self._roots.setdefault(int(rid), str(root))
                self._idents.setdefault(int(rid), str(ident))
        self.repo_ids = list(self._roots)
        self._projects = {rid: project_name(ident) for rid, ident in self._idents.items()}
        self._ctors = constructor_names()

    # ------------------------------------------------------------------ public

    def search(
        self, query: str, *, limit: int = 20, cancel: CancelToken | None = None
    ) -> Iterator[Batch]:
        """Yield ranked batches; the last has final=True. Stops quietly on cancel."""
        run = _Run(self, parse(query), limit, cancel)
        try:
            yield from run.stages()
        except Cancelled:
            return

    def hit(self, entry: _Entry, scored: Scored) -> Hit:
        r = entry.row
        return Hit(
            root=self._roots.get(r.repository_id, ""),
            path=r.path,
            line=r.line,
            end_line=r.end_line,
            name=r.name,
            qualified=qualify(r.language, r.parent, r.name, r.kind),
            kind=r.kind,
            language=r.language,
            repository=self._idents.get(r.repository_id, ""),
            score=scored.score,
            layer=entry.layer,
            positions=scored.match.positions,
            visibility=r.visibility,
            parent=r.parent,
        )


class _Run:
    """One query's pass through the layers (kept apart so Searcher stays reusable)."""

    def __init__(self, s: Searcher, q: Query, limit: int, cancel: CancelToken | None) -> None:
        self.s = s
        self.q = q
        self.limit = limit
        self.cancel = cancel
        self.t0 = time.perf_counter()
        self.pool: dict[int, _Entry] = {}
        self.seen_names: set[str] = set()
        self.scope_files: set[int] = set()  # files declaring the scope's last name
        self.path_files: set[int] = set()  # files whose path names it
        self.ctor = bool(q.scope) and q.leaf.lower() in _CTOR_ALIASES
        self._compiled: dict[str, bool] = {}
        self._memo: dict[tuple[int, bool], tuple[_Entry, Scored | None]] = {}

    # ------------------------------------------------------------------ stages

    def stages(self) -> Iterator[Batch]:
        q = self.q
        if not q.leaf or not self.s.repo_ids:
            yield self._batch([], "exact", final=True)
            return
        if q.looks_like_path:
            hits = self._path_layer()
            yield self._batch(hits, "path", final=True)
            return
        if q.scope:
            for rid in self.s.repo_ids:
                self.scope_files |= rt.files_defining(self.s.conn, rid, q.scope[-1].lower())
                self.path_files |= rt.files_for_scope(self.s.conn, rid, q.scope[-1])
        self._layer_exact_prefix()
        hits, strong = self._ranked(strict=True)
        literal = self._literal_count()
        # The confidence gate: an exact match in the current repository outranks
        # anything the fuzzy layers could add (bands), and so does a full page of
        # exact/prefix matches; either way the later layers cannot change the top.
        if strong or literal >= self.limit:
            yield self._batch(hits, "exact", final=True)
            return
        if hits:
            yield self._batch(hits, "prefix")
        self._check()
        leaf_literal = any(e.match.kind in ("exact", "prefix") for e in self.pool.values())
        if not (q.scope and leaf_literal):
            # a scoped query whose leaf matched literally is decided by its scope
            # retries over those rows; fuzzy leaves would only rank below them
            self._layer_fuzzy(literal > 0)
        if not literal and not leaf_literal:
            self._layer_typo()
        hits, _ = self._ranked(strict=True)
        if not hits and q.scope:
            hits = self._scope_retries()
        yield self._batch(hits, "fuzzy", final=True)

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
        if old is not None and _quality(old.match) >= _quality(match):
            return
        self.pool[row.id] = _Entry(row, match, layer, extra or [])

    def _layer_exact_prefix(self) -> None:
        q, conn = self.q, self.s.conn
        leaf = q.leaf
        for rid in self.s.repo_ids:
            lowers = [q.leaf_lower]
            if self.ctor:
                lowers += list(set(self._ctor_names()))
            rows = self._rows_named(rid, lowers, EXACT_ROWS)
            for row in rows:
                self._add_ctor_aware(row, leaf)
            names = rt.names_fold_prefix(conn, rid, q.leaf_fold, PREFIX_NAMES)
            self._fetch_names(
                rid, names, lambda n: match_exact_prefix(leaf, n), "prefix", PREFIX_ROWS
            )

    def _rows_named(self, rid: int, lowers: list[str], cap: int) -> list[Row]:
        """Definitions with these names; for a scoped query, those the scope could
        answer first, every one only when none could (the retries need them)."""
        conn = self.s.conn
        if self.q.scope:
            rows = rt.symbols_named_in_scope(
                conn, rid, lowers, self.q.scope[-1], self.scope_files | self.path_files, cap
            )
            if rows:
                return rows
        return rt.symbols_named(conn, rid, lowers, cap)

    def _ctor_names(self) -> list[str]:
        return [self.q.leaf_lower, *self.s._ctors.values()]

    def _add_ctor_aware(self, row: Row, leaf: str) -> None:
        m = match_exact_prefix(leaf, row.name)
        if m is not None:
            self._add(row, m, "exact")
            return
        if self.ctor and self.s._ctors.get(row.language) == row.name:
            m = match_exact_prefix(row.name, row.name)
            self._add(row, m, "exact", [("constructor", 0.0)])

    def _fetch_names(
        self,
        rid: int,
        names: list[str],
        matcher: Callable[[str], NameMatch | None],
        layer: str,
        cap: int,
    ) -> None:
        fresh = [n for n in names if n not in self.seen_names]
        if not fresh:
            return
        matches: dict[str, NameMatch] = {}
        for n in fresh:
            self.seen_names.add(n)
            m = matcher(n)
            if m is not None:
                matches[n] = m
        if not matches:
            return
        lowers = list({n.lower() for n in matches})
        rows = self._rows_named(rid, lowers, cap)
        for row in rows:
            m = matches.get(row.name)
            if m is not None:
                self._add(row, m, layer)

    def _layer_fuzzy(self, literal: bool) -> None:
        q, conn = self.q, self.s.conn
        leaf, qf = q.leaf, q.leaf_fold
        if len(qf) < 2:
            return
        for rid in self.s.repo_ids:
            self._check()
            cand = rt.names_first_letter_scan(conn, rid, qf, FUZZY_NAMES)
            cand += rt.names_skeleton_prefix(conn, rid, skeleton(leaf), SKELETON_NAMES)
            # Matching costs ~30 µs a name: match the shortest first (coverage favours
            # them anyway) and at most FUZZY_MATCH of them.
            uniq = sorted(dict.fromkeys(cand), key=lambda n: (len(n), n))[:FUZZY_MATCH]
            scored: list[tuple[float, str, NameMatch]] = []
            for n in uniq:
                if n in self.seen_names:
                    continue
                m = match_fuzzy(leaf, n) or match_exact_prefix(leaf, n)
                if m is not None:
                    scored.append((_quality(m), n, m))
            scored.sort(key=lambda t: (-t[0], t[1]))
            keep = scored[:FUZZY_KEEP]
            by_name = {n: m for _, n, m in keep}
            self._fetch_names(rid, list(by_name), by_name.get, "fuzzy", ROWS_PER_FUZZY)
            self._check()
            for row in rt.fts_substring(conn, rid, qf, SUBSTRING_ROWS):
                if row.id in self.pool:
                    continue
                self._add(row, match_fuzzy(leaf, row.name), "fuzzy")
            self._check()
            if not literal:  # ranks below any literal match: only worth it without one
                self._package_prefixed(rid)

    def _package_prefixed(self, rid: int) -> None:
        """`bufscanner` → bufio's Scanner, `jsondec` → json's Decoder: the head of the
        query names the directory, the tail starts the name. Matched as one fuzzy
        match over `dir/Name` so the usual alignment rules apply."""
        q = self.q
        qf = q.leaf_fold
        if len(qf) < 6 or q.scope or not qf.isalnum():
            return
        for cut in range(3, len(qf) - 2):
            head, tail = qf[:cut], qf[cut:]
            for row in rt.package_split_rows(self.s.conn, rid, head, tail, 200):
                if row.id in self.pool or row.parent:
                    continue  # a package names its top-level definitions, not members
                dirs = [d for d in row.path.split("/")[:-1] if d.lower().startswith(head)]
                if not dirs:
                    continue
                qual = f"{dirs[-1]}/{row.name}"
                m = match_fuzzy(q.leaf, qual)
                off = len(dirs[-1]) + 1
                if m is None or not m.positions or m.positions[0] != 0:
                    continue
                pos = tuple(p - off for p in m.positions if p >= off)
                parts = (*m.parts, ("via_package", WEIGHTS["via_package"]))
                self._add(row, NameMatch(m.kind, parts, pos, m.evidence), "fuzzy")

    def _layer_typo(self) -> None:
        q = self.q
        if len(q.leaf_fold) < 4:
            return
        for rid in self.s.repo_ids:
            self._check()
            names = rt.names_typo(self.s.conn, rid, q.leaf_fold, TYPO_NAMES)
            self._fetch_names(rid, names, lambda n: match_typo(q.leaf, n), "typo", ROWS_PER_FUZZY)

    def _scope_retries(self) -> list[Hit]:
        """No candidate answered the scope: constructor owner, `.` wildcard, scope typo,
        then the leaf alone with a penalty — in that order."""
        q = self.q
        if self.ctor:
            hits = self._constructor_owner()
            if hits:
                return hits
        if q.dotted:
            wild: list[_Entry] = []
            for rid in self.s.repo_ids:
                names = rt.names_wildcard(self.s.conn, rid, q.raw, PREFIX_NAMES)
                lowers = [n.lower() for n in names]
                for row in rt.symbols_named(self.s.conn, rid, lowers, PREFIX_ROWS):
                    m = match_exact_prefix(row.name, row.name)
                    if m is not None:
                        wild.append(_Entry(row, m, "fuzzy", [("wildcard", WEIGHTS["wildcard"])]))
            if wild:
                return self._rank_entries(wild, q.unscoped(), None)
        hits, _ = self._ranked(strict=False)
        if hits:
            return hits
        return self._ranked_fallback()

    def _constructor_owner(self) -> list[Hit]:
        q = self.q
        owner = q.scope[-1]
        outer = q.scope[:-1]
        entries: list[_Entry] = []
        for rid in self.s.repo_ids:
            for row in rt.symbols_named(self.s.conn, rid, [owner.lower()], EXACT_ROWS):
                if row.kind not in ("class", "struct", "module", "type", "interface", "enum"):
                    continue
                if outer and qualifier_feature(outer, row.parent, row.path, typo=False) is None:
                    continue
                m = match_exact_prefix(owner, row.name)
                if m is None or m.kind != "exact":
                    continue
                entries.append(
                    _Entry(row, m, "exact", [("constructor_owner", WEIGHTS["constructor_owner"])])
                )
        oq = Query(raw=q.raw, leaf=owner)
        return self._rank_entries(entries, oq, [])

    # ------------------------------------------------------------------ ranking

    def _qualifier(self, e: _Entry, strict: bool) -> list[tuple[str, float]] | None:
        q = self.q
        if not q.scope:
            return []
        r = e.row
        qual = qualifier_feature(q.scope, r.parent, r.path, typo=False)
        if qual is None and not strict:
            qual = qualifier_feature(q.scope, r.parent, r.path, typo=True)
        if self.ctor:
            # a constructor answers only for its own class: the chain itself (or
            # its typo), never a neighbour in the same file or package
            if qual is None or qual[0][0] not in ("scope", "scope_typo"):
                return None
            return qual
        in_file = r.file_id in self.scope_files and r.name.lower() != q.scope[-1].lower()
        if in_file:
            # the scope is declared in this file: evidence on its own (an inherited
            # member of a base class beside it) and on top of a parent match
            qual = [*(qual or []), ("scope_file", WEIGHTS["scope_file"])]
        return qual

    def _compiled_extra(self, entries: list[_Entry]) -> None:
        """JavaScript beside its own declaration file (`x.js` + `x.d.ts`) is compiled
        output of TypeScript sources: it takes the generated-copy penalty. One
        indexed lookup per repository per batch of new paths."""
        todo: dict[int, dict[str, list[str]]] = {}
        for e in entries:
            p = e.row.path
            if p in self._compiled or not p.endswith(_JS_EXTS):
                continue
            stem = p.rsplit(".", 1)[0]
            for ext in (".d.ts", ".d.cts", ".d.mts"):
                todo.setdefault(e.row.repository_id, {}).setdefault(stem + ext, []).append(p)
            self._compiled[p] = False
        for rid, decl in todo.items():
            marks = ",".join("?" * len(decl))
            for (found,) in self.s.conn.execute(
                f"SELECT path FROM files WHERE repository_id = ? AND path IN ({marks})",
                (rid, *decl),
            ):
                for js in decl[found]:
                    self._compiled[js] = True

    def _cand(self, r: Row) -> Candidate:
        return _cand(r, self.s._projects.get(r.repository_id, ""))

    def _extra(self, e: _Entry) -> list[tuple[str, float]]:
        if self._compiled.get(e.row.path):
            return [*e.extra, ("path_compiled", WEIGHTS["path_generated"])]
        return e.extra

    def _ranked(self, *, strict: bool) -> tuple[list[Hit], bool]:
        self._compiled_extra(list(self.pool.values()))
        scored: list[tuple[Scored, _Entry]] = []
        best_evidence = 0
        for e in self.pool.values():
            if e.match.kind in ("abbrev", "subseq"):
                best_evidence = max(best_evidence, e.match.evidence)
        strong = False
        for e in self.pool.values():
            sc = self._score_entry(e, strict)
            if sc is None:
                continue
            if e.match.kind == "typo" and e.match.evidence < best_evidence:
                continue  # D14: a near miss joins only on at least the in-order evidence
            if e.match.kind == "exact" and e.row.repository_id == self.s.repo_id:
                strong = True
            scored.append((sc, e))
        return self._top(scored), strong

    def _literal_count(self) -> int:
        """Exact/prefix entries that answer the query (scope included)."""
        return sum(
            1
            for e in self.pool.values()
            if e.match.kind in ("exact", "prefix") and self._score_entry(e, True) is not None
        )

    def _score_entry(self, e: _Entry, strict: bool) -> Scored | None:
        """Score once per entry and mode: batches re-rank the growing pool (~5 µs a row)."""
        key = (e.row.id, strict)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        qual = self._qualifier(e, strict)
        sc = None
        if qual is not None:
            sc = score(
                self.q, self._cand(e.row), match=e.match, qualifier=qual, extra=self._extra(e)
            )
        self._memo[key] = (e, sc)
        return sc

    def _ranked_fallback(self) -> list[Hit]:
        scored = []
        for e in self.pool.values():
            extra = [*self._extra(e), ("scope_unmatched", WEIGHTS["scope_unmatched"])]
            sc = score(self.q, self._cand(e.row), match=e.match, qualifier=[], extra=extra)
            if sc is not None:
                scored.append((sc, e))
        return self._top(scored)

    def _rank_entries(
        self, entries: list[_Entry], q: Query, qualifier: list[tuple[str, float]] | None
    ) -> list[Hit]:
        self._compiled_extra(entries)
        scored = []
        for e in entries:
            sc = score(
                q, self._cand(e.row), match=e.match, qualifier=qualifier or [], extra=self._extra(e)
            )
            if sc is not None:
                scored.append((sc, e))
        return self._top(scored)

    def _top(self, scored: list[tuple[Scored, _Entry]]) -> list[Hit]:
        scored.sort(key=lambda t: (-t[0].score.total, t[1].row.path, t[1].row.line, t[1].row.id))
        return [self.s.hit(e, sc) for sc, e in scored[: self.limit]]

    def _path_layer(self) -> list[Hit]:
        q = self.q
        text = q.raw.strip("/")
        hits: list[Hit] = []
        for rid in self.s.repo_ids:
            for fid, path, lang in rt.files_matching(self.s.conn, rid, text, 200):
                base = path.rsplit("/", 1)[-1]
                parts: list[tuple[str, float]] = []
                if path.lower().endswith(text.lower()):
                    parts.append(
                        ("path", 900.0 if base.lower() == text.lower() or "/" in text else 700.0)
                    )
                else:
                    parts.append(("path", 500.0))
                parts.append(("length", round(100.0 * len(text) / max(len(path), 1), 1)))
                del fid
                hits.append(
                    Hit(
                        root=self.s._roots.get(rid, ""),
                        path=path,
                        line=1,
                        end_line=None,
                        name=base,
                        qualified=path,
                        kind="file",
                        language=lang or "",
                        repository=self.s._idents.get(rid, ""),
                        score=Score.of(parts),
                        layer="path",
                    )
                )
        hits.sort(key=lambda h: (-h.score.total, h.path))
        return hits[: self.limit]

    def _batch(self, hits: list[Hit], layer: str, *, final: bool = False) -> Batch:
        return Batch(
            hits=hits,
            layer=layer,
            final=final,
            state=self.s.state,
            elapsed_ms=round((time.perf_counter() - self.t0) * 1000, 2),
        )


def _quality(m: NameMatch) -> float:
    return sum(v for _, v in m.parts)


def project_name(identity: str) -> str:
    """`github.com/Effect-TS/effect` → `effect`; `local:/src/foo` → `foo`."""
    return identity.rstrip("/").rsplit("/", 1)[-1]


def _cand(r: Row, project: str = "") -> Candidate:
    return Candidate(
        project=project,
        name=r.name,
        kind=r.kind,
        visibility=r.visibility,
        parent=r.parent,
        path=r.path,
        language=r.language,
    )


__all__ = ["Searcher", "fold"]
