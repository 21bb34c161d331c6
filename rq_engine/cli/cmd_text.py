"""`rq --text`, `rq --export-graph`, `rq --graph`: the CLI face of the text ranker.

Thin: parses nothing itself, asks rq_engine.text.service, renders the answer.
Must not import textual, rich, tree_sitter or mcp (the same light start as `rq -q`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rq_engine.core.defaults import TEXT_LIMIT
from rq_engine.core.diag import say
from rq_engine.core.errors import ExitCode, RqError, UsageError
from rq_engine.core.escape import visible
from rq_engine.core.query import MAX_QUERY_CHARS
from rq_engine.text import lexical
from rq_engine.text.answering import (
    Miss,
    bring_up,
    confirm_miss,
    display_path,
    result_json,
    revalidate,
)
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

    from rq_engine.core.identity import Checkout
    from rq_engine.text.query import Ranked


def _realization(ns: argparse.Namespace, cwd: Path) -> Realization:
    if ns.graph:
        return open_graph_file(Path(ns.graph), cwd)
    return open_live(cwd, all_repos=bool(getattr(ns, "all_repos", False)))


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
    if ns.export_graph:
        real = _realization(ns, cwd)
        g = real.full
        from rq_engine.text.graphjson import dump

        dump(g, Path(ns.export_graph))
        say(f"wrote {ns.export_graph}: {len(g.nodes)} nodes, {len(g.edges)} edges")
        return int(ExitCode.OK)
    if ns.text is None:
        if not ns.graph:
            raise UsageError(
                "nothing to do: give --text WORDS, --export-graph FILE or --graph FILE"
            )
        return _summary(open_graph_file(Path(ns.graph), cwd).full)
    if len(ns.text.strip()) > MAX_QUERY_CHARS:
        n = len(ns.text.strip())
        raise UsageError(f"--text is {n:,} characters long; the limit is {MAX_QUERY_CHARS:,}")
    handoff = None
    human = sys.stdout.isatty() and not (ns.json or ns.ndjson)
    wait_ms = getattr(ns, "wait_ms", None)
    if not ns.graph and not getattr(ns, "all_repos", False):
        handoff = bring_up(cwd, human=human, wait_ms=wait_ms, say=say)
    limit = ns.limit if ns.limit is not None else TEXT_LIMIT
    try:
        answer = _ask(ns, cwd, limit)
    except RqError as e:
        if e.code == ExitCode.WARMING and handoff is not None:
            _start_warmer(handoff)  # not indexed yet (--no-wait): warming goes on after us
        raise
    answer = revalidate(answer, lambda: _ask(ns, cwd, limit))
    # no answer: absent, or not indexed yet? (git is asked on a miss only; a hit forks nothing)
    miss = confirm_miss(cwd, answer, lambda: _ask(ns, cwd, limit), human=human, wait_ms=wait_ms)
    answer = miss.answer
    code = _render(ns, miss, cwd)
    _after(ns, answer, code, handoff or miss.handoff)
    return code


def _after(ns: argparse.Namespace, a: TextAnswer, code: int, handoff: Checkout | None) -> None:
    """After the answer is out: count it (D13), hand leftover warming to the detached child."""
    if a.realization.source != "index":
        return
    from rq_engine.search.handoff import start_warmer
    from rq_engine.store import usage
    from rq_engine.store.db import connect

    # nothing readable is a miss against a ready index, for the counters (as rq -q's)
    counted = {int(ExitCode.OK): "hit", int(ExitCode.MISS): "miss", int(ExitCode.UNREAD): "miss"}
    outcome = counted.get(code, "warming")
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
    from rq_engine.search.handoff import start_warmer
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


def _chain_text(chain: list[Node]) -> str:
    """`io.go > Reader`: the file's base name, then each enclosing symbol's name."""
    return " > ".join(n.name for n in chain)


def _render(ns: argparse.Namespace, miss: Miss, cwd: Path) -> int:
    from rq_engine.core.printers import Output, printer_for

    a = miss.answer
    ranking = a.ranking
    shown = ranking.results[: len(a.hits)]
    records: list[dict[str, object]] = []
    lines: list[str] = []
    if ns.json or ns.ndjson:
        records = [
            result_json(n, c, r, a.realization, cwd)
            for (n, c), r in zip(a.hits, shown, strict=True)
        ]
    else:
        # Paths and names are the repository's data: each line through `visible`, so a
        # control character in one can neither act on a terminal nor start a line.
        for (n, c), r in zip(a.hits, shown, strict=True):
            lines.append(
                f"{display_path(n, a.realization, cwd)}:{n.line}  {n.kind}  {n.qualified}"
                f"  (in: {_chain_text(c)})"
            )
            if r.explain is not None:
                lines.extend(_explain_lines(r, a))
        lines = [visible(line) for line in lines]
        if ns.explain and a.cache.state != "off":
            cs = a.cache
            note = f" ({cs.note})" if cs.note else ""
            lines.insert(0, f"# cache: {cs.state} in {cs.ms:.1f} ms{note}")
    head: dict[str, object] = {
        "ranker": ranking.profile,
        "analyzer": lexical.ANALYZER_ID,
        "truncated": ranking.truncated,
        "candidates": ranking.candidates,
        "no_answer": ranking.no_answer,
        "cache": _cache_json(a),
    }
    tail: dict[str, object] = {}
    if miss.not_read:  # on a miss: files no plugin reads, so never "absent" there (as rq -q)
        tail["not_read"] = dict(miss.not_read)
    if miss.outcome == "unread":
        tail["nothing_readable"] = True
    o = Output(head, records, lines, tail=tail, stream=("ranker", "truncated"))
    printer_for(json=ns.json, ndjson=ns.ndjson).write(sys.stdout, o)
    if not (ns.json or ns.ndjson) and ranking.truncated:
        say(
            f"truncated: the {ranking.profile} candidate ceiling cut some candidates;"
            " these are the best of those scored"
        )
    sys.stdout.flush()
    if a.hits:
        return int(ExitCode.OK)
    if miss.outcome == "unread":  # rq -q's words and code: no match, and nothing to match
        say(f"no match for {ns.text!r}: {miss.note}")
        return int(ExitCode.UNREAD)
    if miss.outcome == "warming":  # the work tree moved and is not caught up: not yet
        say(f"no answer for {ns.text!r} yet: {miss.note}")
        return int(ExitCode.WARMING)
    warming = a.realization.warming
    if miss.note:  # the files here no plugin reads: absent only from those rq reads
        why = "; ".join(w for w in (ranking.no_answer, miss.note) if w)
        say(f"no good answer for {ns.text!r} in the files rq reads: {why}")
    elif ranking.no_answer:
        say(f"no good answer for {ns.text!r}: {ranking.no_answer}")
    if warming:
        say(f"the index of {', '.join(warming)} is still warming; run rq --index to finish it")
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
