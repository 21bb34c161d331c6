"""`rq --text`, `rq --export-graph`, `rq --graph`: the CLI face of the text ranker.

Thin: parses nothing itself, asks rq_engine.text.service, renders the answer.
Must not import textual, rich, tree_sitter or mcp (the same light start as `rq -q`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_engine.core.escape import visible
from rq_engine.core.query import MAX_QUERY_CHARS
from rq_engine.text import lexical
from rq_engine.text.graph import Graph, Node
from rq_engine.text.service import (
    Realization,
    TextAnswer,
    TextService,
    open_graph_file,
    open_live,
    query_live,
)

TYPE_CHECKING = False  # (typing, json: ~5 ms of a cached text query; imported where used)

if TYPE_CHECKING:
    import argparse
    import sqlite3
    from typing import Any

    from rq_engine.core.identity import Checkout
    from rq_engine.text.query import Ranked

DEFAULT_LIMIT = 20


def _say(msg: str) -> None:
    print(f"rq: {visible(msg)}", file=sys.stderr)  # (a message may name a path)


def _realization(ns: argparse.Namespace, cwd: Path) -> Realization:
    if ns.graph:
        return open_graph_file(Path(ns.graph), cwd)
    return open_live(cwd, all_repos=bool(getattr(ns, "all_repos", False)))


def _bring_up(ns: argparse.Namespace, cwd: Path) -> Checkout | None:
    """The same freshness rules as a symbol query: a never-indexed git work tree or a
    warming index is warmed to complete first (a text query ranks the whole graph),
    within the wait policy; the checkout to hand to the warmer afterwards, if any."""
    if ns.graph or getattr(ns, "all_repos", False):
        return None
    from rq_engine.core.identity import checkout_for
    from rq_engine.index import fresh
    from rq_engine.search.answer import Wait
    from rq_engine.store.db import connect

    human = sys.stdout.isatty() and not (ns.json or ns.ndjson)
    wait = Wait.for_face(getattr(ns, "wait_ms", None), human)
    conn = connect()
    try:
        # The common case first, from strings: an indexed checkout, complete, with a
        # fresh verdict (no Checkout: its git config parse and pathlib cost ~4 ms).
        from rq_engine.core.identity import git_dir
        from rq_engine.store.repos import locate

        root, _, identity = locate(conn, cwd)
        if (
            identity is not None
            and _coverage(conn, identity) == "complete"
            and fresh.fresh(conn, root, git_dir(root))
        ):
            return None
        co = checkout_for(cwd)
        state = _coverage(conn, co.identity)
        if state == "never" and co.git_dir is None:
            return None  # a plain directory is indexed only when asked (open_live says so)
        if state != "complete" and not wait.none:
            if human:
                _say(f"indexing {co.root} before ranking it (Ctrl-C stops; what is done is kept)")
            from rq_engine.index import warm

            state = warm.until_complete(conn, co, budget_ms=wait.budget_ms)
        elif state == "complete" and not wait.none and not fresh.fresh(conn, co.root, co.git_dir):
            # the ranking reads every definition: what moved since the index was settled
            # is reindexed first (a symbol query asks only on a miss; a text query has none)
            rid = _repo_id(conn, co.identity)
            moved = fresh.check(conn, co.root, co.git_dir, rid)
            if moved.moved:
                from rq_engine.index import warm

                stats = warm.catch_up(conn, co, moved, budget_ms=wait.budget_ms)
                if stats.timed_out or not (stats.complete or not moved.walk):
                    return co
            dirs = moved.dirs
            if moved.moved and stats.dirs is not None:
                dirs = stats.dirs
            fresh.settle(
                conn,
                co.root,
                co.git_dir,
                rid,
                moved.stamp,
                moved.held,
                reindexed=moved.moved,
                dirs=dirs,
            )
            return None
        if state != "complete" or not fresh.fresh(conn, co.root, co.git_dir):
            return co
    finally:
        conn.close()
    return None


def _repo_id(conn: sqlite3.Connection, identity: str) -> int:
    row = conn.execute("SELECT id FROM repositories WHERE identity = ?", (identity,)).fetchone()
    return int(row[0])


def _coverage(conn: sqlite3.Connection, identity: str) -> str:
    row = conn.execute(
        "SELECT c.status FROM coverage c JOIN repositories r ON r.id = c.repository_id"
        " WHERE r.identity = ? AND c.scope = 'full'",
        (identity,),
    ).fetchone()
    return str(row[0]) if row else "never"


def _revalidate(ns: argparse.Namespace, a: TextAnswer, cwd: Path, limit: int) -> TextAnswer:
    """Results whose file moved since it was indexed are reindexed, and the query is asked
    again (once): a stale line is never shown."""
    if a.realization.source != "index":
        return a
    from rq_engine.search import validate
    from rq_engine.store.db import connect

    items = []
    for node, _ in a.hits:
        repo = node.id.split("|", 1)[0] if a.realization.graph.repository == "*" else None
        ident = repo or a.realization.graph.repository
        root = a.realization.roots.get(ident)
        if root is not None:
            items.append((str(root), ident, node.path))
    conn = connect()
    try:
        moved = validate.stale_files(conn, items)
        if not moved:
            return a
        validate.refresh(conn, moved)
    finally:
        conn.close()
    return _ask(ns, cwd, limit)


def _ask(ns: argparse.Namespace, cwd: Path, limit: int) -> TextAnswer:
    if ns.graph:
        real = open_graph_file(Path(ns.graph), cwd)
        return TextService(keep=0).query(
            real, ns.text, profile=ns.ranker, limit=limit, explain=bool(ns.explain)
        )
    return query_live(
        cwd,
        ns.text,
        profile=ns.ranker,
        limit=limit,
        explain=bool(ns.explain),
        all_repos=bool(getattr(ns, "all_repos", False)),
    )


def run(ns: argparse.Namespace) -> int:
    cwd = Path(os.getcwd())
    if ns.text is not None and getattr(ns, "query", None):
        raise UsageError("give the words to --text, not as a separate query")
    if ns.export_graph:
        if getattr(ns, "all_repos", False):
            raise UsageError("--export-graph writes one repository; drop --all-repos")
        real = _realization(ns, cwd)
        g = real.full
        from rq_engine.text.graph import dump

        dump(g, Path(ns.export_graph))
        _say(f"wrote {ns.export_graph}: {len(g.nodes)} nodes, {len(g.edges)} edges")
        return int(ExitCode.OK)
    if ns.text is None:
        if not ns.graph:
            raise UsageError(
                "nothing to do: give --text WORDS, --export-graph FILE or --graph FILE"
            )
        if getattr(ns, "query", None):
            raise UsageError("--graph goes with --text or --export-graph")
        return _summary(open_graph_file(Path(ns.graph), cwd).full)
    if len(ns.text.strip()) > MAX_QUERY_CHARS:
        n = len(ns.text.strip())
        raise UsageError(f"--text is {n:,} characters long; the limit is {MAX_QUERY_CHARS:,}")
    handoff = _bring_up(ns, cwd)
    limit = ns.limit if ns.limit is not None else DEFAULT_LIMIT
    try:
        answer = _ask(ns, cwd, limit)
    except RqError as e:
        if e.code == ExitCode.WARMING and handoff is not None:
            _start_warmer(handoff)  # not indexed yet (--no-wait): warming goes on after us
        raise
    answer = _revalidate(ns, answer, cwd, limit)
    code = _render(ns, answer, cwd)
    _after(ns, answer, code, handoff)
    return code


def _after(ns: argparse.Namespace, a: TextAnswer, code: int, handoff: Checkout | None) -> None:
    """After the answer is out: count it (D13), hand leftover warming to the detached child."""
    if a.realization.source != "index":
        return
    from rq_engine.search.service import start_warmer
    from rq_engine.store import usage
    from rq_engine.store.db import connect

    outcome = {int(ExitCode.OK): "hit", int(ExitCode.MISS): "miss"}.get(code, "warming")
    conn = connect()
    try:
        usage.record(
            conn,
            source="text",
            flags=usage.flags_key(
                "json" if ns.json else "", "ndjson" if ns.ndjson else "", ns.ranker or ""
            ),
            outcome=outcome,
            on_complete=not a.realization.warming,
        )
        if handoff is not None:
            start_warmer(conn, handoff)
    finally:
        conn.close()


def _start_warmer(co: Checkout) -> None:
    from rq_engine.search.service import start_warmer
    from rq_engine.store.db import connect

    conn = connect()
    try:
        start_warmer(conn, co)
    finally:
        conn.close()


def _summary(g: Graph) -> int:
    files = sum(1 for n in g.nodes if n.kind == "file")
    print(f"schema      rq.graph/1\nrepository  {visible(g.repository)}")  # (the file's word)
    print(f"nodes       {len(g.nodes)} ({files} files)\nedges       {len(g.edges)}")
    print(f"graph       {g.identity}\nlexical     {g.lexical_identity} ({lexical.ANALYZER_ID})")
    return int(ExitCode.OK)


def _display_path(node: Node, real: Realization, cwd: Path) -> str:
    repo = node.id.split("|", 1)[0] if real.graph.repository == "*" else real.graph.repository
    root = real.roots.get(repo)
    if root is None:
        return node.path
    return os.path.relpath(root / node.path, cwd)


def _chain_text(chain: list[Node]) -> str:
    """`io.go > Reader`: the file's base name, then each enclosing symbol's name."""
    return " > ".join(n.name for n in chain)


def _result_json(
    node: Node, chain: list[Node], r: Ranked, real: Realization, cwd: Path
) -> dict[str, Any]:
    repo = node.id.split("|", 1)[0] if real.graph.repository == "*" else real.graph.repository
    out: dict[str, Any] = {
        "path": _display_path(node, real, cwd),
        "line": node.line,
        "end_line": node.end_line,
        "name": node.name,
        "qualified": node.qualified,
        "kind": node.kind,
        "language": node.language,
        "repository": repo,
        "score": round(r.score, 6),
        "id": node.id,
        "chain": [{"id": c.id, "kind": c.kind, "name": c.name} for c in chain],
        "coverage": round(r.coverage, 6),
    }
    if r.explain is not None:
        out["explain"] = {
            "lexical": round(r.lexical, 6),
            "structure": round(r.structure, 6),
            "norm": r.explain.norm,
            "terms": [
                {
                    "term": t.term,
                    "idf": round(t.idf, 6),
                    "tf": t.tf,
                    "contribution": round(t.contribution, 6),
                    "fields": [
                        {
                            "field": f.field,
                            "count": f.count,
                            "weight": f.weight,
                            "contribution": round(f.contribution, 6),
                        }
                        for f in t.fields
                    ],
                }
                for t in r.explain.terms
            ],
            "features": [
                {"name": f.name, "op": f.op, "value": round(f.value, 6), "detail": f.detail}
                for f in r.explain.features
            ],
            "children": [
                {"id": s.child, "units": list(s.units), "contribution": round(s.contribution, 6)}
                for s in r.explain.structure
            ],
        }
    return out


def _render(ns: argparse.Namespace, a: TextAnswer, cwd: Path) -> int:
    if ns.json or ns.ndjson:
        import json
    ranking = a.ranking
    shown = ranking.results[: len(a.hits)]
    if ns.json:
        doc = {
            "ranker": ranking.profile,
            "analyzer": lexical.ANALYZER_ID,
            "truncated": ranking.truncated,
            "candidates": ranking.candidates,
            "no_answer": ranking.no_answer,
            "cache": _cache_json(a),
            "results": [
                _result_json(n, c, r, a.realization, cwd)
                for (n, c), r in zip(a.hits, shown, strict=True)
            ],
        }
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    elif ns.ndjson:
        for (n, c), r in zip(a.hits, shown, strict=True):
            obj = _result_json(n, c, r, a.realization, cwd)
            obj["ranker"] = ranking.profile
            obj["truncated"] = ranking.truncated
            sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    else:
        # Paths and names are the repository's data: each line through `visible`, so a
        # control character in one can neither act on a terminal nor start a line.
        lines = []
        for (n, c), r in zip(a.hits, shown, strict=True):
            lines.append(
                f"{_display_path(n, a.realization, cwd)}:{n.line}  {n.kind}  {n.qualified}"
                f"  (in: {_chain_text(c)})"
            )
            if r.explain is not None:
                lines.extend(_explain_lines(r, a))
        lines = [visible(line) for line in lines]
        if ns.explain and a.cache.state != "off":
            cs = a.cache
            note = f" ({cs.note})" if cs.note else ""
            lines.insert(0, f"# cache: {cs.state} in {cs.ms:.1f} ms{note}")
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        if ranking.truncated:
            _say(
                f"truncated: the {ranking.profile} candidate ceiling cut some candidates;"
                " these are the best of those scored"
            )
    sys.stdout.flush()
    if a.hits:
        return int(ExitCode.OK)
    warming = a.realization.warming
    if ranking.no_answer:
        _say(f"no good answer for {ns.text!r}: {ranking.no_answer}")
    if warming:
        _say(f"the index of {', '.join(warming)} is still warming; run rq --index to finish it")
        return int(ExitCode.WARMING)
    return int(ExitCode.MISS)


def _cache_json(a: TextAnswer) -> dict[str, object]:
    """How the answer was served: `hit`, `delta`, `edge`, `rebuilt`, `memory` (the
    cache could not serve; `note` says why) or `off` (not a cached profile), and the
    milliseconds that took (a delta's or a build's cost shows here)."""
    c = a.cache
    return {"state": c.state, "note": c.note, "generation": c.generation, "ms": round(c.ms, 1)}


def _explain_lines(r: Ranked, a: TextAnswer) -> list[str]:
    assert r.explain is not None
    ex = r.explain
    adds = "".join(f" + {f.name} {f.value:.4f}" for f in ex.features if f.op == "+")
    mults = "".join(f" x {f.name} {f.value:g}" for f in ex.features if f.op == "x")
    total = f"(lexical {r.lexical:.4f} + structure {r.structure:.4f}{adds}){mults}"
    out = [
        f"    score {r.score:.4f} = {total}   coverage {r.coverage:.0%}"
        + (f"   ({ex.norm})" if ex.norm else "")
    ]
    for f in ex.features:
        sign = "+" if f.op == "+" else "x"
        out.append(f"    {f.name} {sign}{f.value:.4f}: {f.detail}")
    for t in ex.terms:
        fields = ", ".join(f"{f.field} {f.weight}x{f.count} {f.contribution:.4f}" for f in t.fields)
        out.append(
            f"    {t.term!r:<22} idf {t.idf:.4f}  tf {t.tf:g}  -> {t.contribution:.4f}   [{fields}]"
        )
    for s in ex.structure:
        child = a.realization.graph.by_id[s.child]
        words = ", ".join(repr(u) for u in s.units)
        out.append(f"    structure +{s.contribution:.4f}: child {child.qualified} has {words}")
    return out
