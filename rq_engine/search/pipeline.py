"""The staged search pipeline: a stream of ranked result batches, cancellable between stages.

`Searcher` is what a face searches from: the repositories a working directory
searches (its own, or all), their coverage, the branch probe and the anchor,
shared by every query it is asked. Each query is one `layers.Run` through the
staged layers (search/layers.py: exact/prefix, the confidence gate, fuzzy, near
misses, scope retries, paths). Cancellation: `search` never raises on cancel;
it stops yielding (the consumer sees the generator end without a final batch).

Imports the stdlib, rq_engine.core, rq_engine.search, the store's repository
lookup, the plugin registry's pure-data helpers and index/gitstate's native ref
readers (search/branch.py) only: no tree-sitter, textual, rich or mcp (an anchor
file the index does not hold is parsed live, and only then is a parser loaded).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from rq_engine.core.defaults import SYMBOL_LIMIT
from rq_engine.core.identity import git_dir
from rq_engine.core.query import parse
from rq_engine.core.scoring.weights import WEIGHTS
from rq_engine.core.sqlite import sqlite3
from rq_engine.lang.registry import constructor_names
from rq_engine.search import branch
from rq_engine.search import retrieval as rt
from rq_engine.search.layers import Run
from rq_engine.search.rank import project_name
from rq_engine.search.types import Batch, Cancelled, CancelToken, Hit
from rq_engine.store.repos import locate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rq_engine.search.anchor import Anchor, AnchorScope


class Searcher:
    """Search the index from a working directory: its repository by default, or all.

    `state` is the current repository's coverage (never | warming | complete);
    `repository` its identity, None when the directory is not indexed.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        cwd: str | os.PathLike[str],
        *,
        all_repos: bool = False,
        anchor: Anchor | None = None,
    ) -> None:
        self.conn = conn
        self.cwd = os.path.abspath(cwd)
        self.all_repos = all_repos
        rt.register(conn)
        self.root, self.repo_id, self.repository = locate(conn, self.cwd)
        self.state = "never"
        if self.repo_id is not None:
            st = conn.execute(
                "SELECT status FROM coverage WHERE repository_id = ? AND scope = 'full'",
                (self.repo_id,),
            ).fetchone()
            self.state = str(st[0]) if st else "warming"
        # The searched repositories by id: checkout root, identity, project name
        # (what a ranked row needs to become a Hit, which search/rank.py makes)
        self.roots: dict[int, str] = {}
        self.idents: dict[int, str] = {}
        if self.repo_id is not None:
            self.roots[self.repo_id] = self.root
            self.idents[self.repo_id] = self.repository or ""
        if all_repos:
            for rid, ident, root in conn.execute(
                "SELECT r.id, r.identity, MIN(c.root_path) FROM repositories r"
                " JOIN checkouts c ON c.repository_id = r.id GROUP BY r.id"
            ):
                self.roots.setdefault(int(rid), str(root))
                self.idents.setdefault(int(rid), str(ident))
        self.repo_ids = list(self.roots)
        self.projects = {rid: project_name(ident) for rid, ident in self.idents.items()}
        self._ctors = constructor_names()
        self.anchor = anchor
        self._anchor_scope: AnchorScope | None = None
        self._anchor_resolved = False
        self._branch_probe: branch.Probe | None = None

    # ------------------------------------------------------------------ context

    def branch_probe(self) -> branch.Probe:
        """The current checkout's branch files, started on first use (a search's start,
        so git, when it must be asked, runs while layer 1 reads the index). Once per
        Searcher: the faces make one per query."""
        if self._branch_probe is None:
            gd = git_dir(self.root) if self.repo_id is not None else None
            self._branch_probe = branch.probe(self.root, gd)
        return self._branch_probe

    def anchor_scope(self) -> AnchorScope | None:
        """The anchor resolved once per Searcher (None: no anchor, or outside the
        searched repositories)."""
        if not self._anchor_resolved:
            self._anchor_resolved = True
            if self.anchor is not None:
                from rq_engine.search.anchor import resolve  # (only a query with an anchor)

                self._anchor_scope = resolve(self.conn, self.roots, self.anchor)
        return self._anchor_scope

    def boost_note(self) -> str:
        """Why a boost did not apply, for a face to say (empty when nothing to say).
        Never waits: a search that scored nothing asked nothing of git's answer."""
        bf = self._branch_probe.decided() if self._branch_probe is not None else None
        return (
            f"branch boost skipped: {bf.note}" if bf is not None and bf.state == "skipped" else ""
        )

    # ------------------------------------------------------------------ public

    def search(
        self, query: str, *, limit: int = SYMBOL_LIMIT, cancel: CancelToken | None = None
    ) -> Iterator[Batch]:
        """Yield ranked batches; the last has final=True. Stops quietly on cancel."""
        q = parse(query)
        run = Run(self, q, limit, cancel)
        try:
            if not q.kind:
                yield from run.stages()
                return
            # `enum type` names an enum `type`, or is EnumType's words typed apart: the
            # words' reading too, the two merged (_merged: band, every word, score)
            last: Batch | None = None
            for batch in run.stages():
                if not batch.final:
                    yield batch
                last = batch
            words = None
            # _merged orders by band first: when the kind reading filled the page with
            # exact or prefix matches, no abbreviation or near miss of the words can
            # enter it, and their layers (every fuzzy and typo read of `structfile`:
            # ~80 ms on Linux's 4M names) are skipped
            floor = 0.0
            if last is not None and len(last.hits) >= limit:
                floor = last.hits[limit - 1].score.parts[0][1]
            words_q = parse(query, kind_words=False)
            run = Run(self, words_q, limit, cancel, literal_only=floor >= WEIGHTS["prefix"])
            for batch in run.stages():
                words = batch
            if last is None or words is None:
                return
            yield _merged(last, words, limit)
        except Cancelled:
            return


def _merged(kinds: Batch, words: Batch, limit: int) -> Batch:
    """The two readings' final batches as one ranked list, each definition once. By
    match band (exact, prefix, … : a hit's first part), and in a band what uses every
    word typed first — a definition of the kind named, or the words' reading
    (`enum type` → EnumType) — then what left the kind word out (a `type` method);
    by score after that, the kind reading's first on a tie."""

    def order(h: Hit, words_read: bool) -> tuple[float, int, float]:
        parts = h.score.parts
        every_word = words_read or any(name == "kind_word" for name, _ in parts)
        return (-(parts[0][1] if parts else 0.0), 0 if every_word else 1, -h.score.total)

    ranked = sorted(
        [(order(h, False), h) for h in kinds.hits] + [(order(h, True), h) for h in words.hits],
        key=lambda kh: kh[0],
    )
    seen: set[tuple[str, str, int, str]] = set()
    hits = []
    for _, h in ranked:
        key = (h.root, h.path, h.line, h.name)
        if key not in seen:
            seen.add(key)
            hits.append(h)
    return Batch(
        hits=hits[:limit],
        layer=kinds.layer,
        final=True,
        state=kinds.state,
        elapsed_ms=round(kinds.elapsed_ms + words.elapsed_ms, 2),
        notes=[*kinds.notes, *words.notes],
    )


__all__ = ["Searcher", "project_name"]
