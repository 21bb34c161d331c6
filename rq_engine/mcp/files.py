"""symbols_in_file and show_definition: one file's outline, one definition's source — both fresh.

A file is looked up in the index after the staleness check every face uses
(search/validate.py): a file changed since it was indexed — or new, or never
indexed — is reparsed in this process first (one file, no fork pool), so an
edit the agent just made shows. In a plain directory rq does not index unasked,
the file is parsed in memory. A definition named by qualified name is found
with QueryService.answer (the warming rules apply) and its file is checked by
Session.readable before a byte is read.

Runs in the engine process; never imports mcp.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from rq_engine.lang import registry
from rq_engine.mcp import bound
from rq_engine.mcp.bound import ToolError
from rq_engine.mcp.schema import DEFAULT_MAX_LINES
from rq_engine.mcp.scope import Session, Target
from rq_engine.search import validate
from rq_engine.search.handoff import start_warmer
from rq_engine.search.render import display_path
from rq_engine.search.types import Hit

Reply = dict[str, Any]
After = Callable[[], None] | None
# Candidates a qualified-name lookup ranks before picking the exact one.
NAME_POOL = 50
ALTERNATIVES = 5


class Sym(NamedTuple):
    name: str
    kind: str
    line: int
    end_line: int | None
    parent: str | None
    language: str

    @property
    def qualified(self) -> str:
        return registry.qualify(self.language, self.parent, self.name, self.kind)

    @property
    def last(self) -> int:
        return (
            self.end_line if self.end_line is not None and self.end_line >= self.line else self.line
        )


class FileSymbols(NamedTuple):
    syms: list[Sym]
    reparsed: bool
    coverage: str
    identity: str | None
    after: After


def file_symbols(sess: Session, t: Target) -> FileSymbols:
    """The definitions of one file as they are now (the file reparsed first if it moved)."""
    lang = registry.language_for_path(t.rel)
    if lang is None:
        raise ToolError(
            f"{t.rel}: not a source file rq reads (languages: {', '.join(registry.languages())})"
        )
    root = t.root
    if root.identity is None and not root.git:
        return _parsed_in_memory(t, lang, sess.identity(root))
    conn = sess.conn
    ident = sess.identity(root)
    moved = validate.stale_files(conn, [(root.path, ident, t.rel)])
    if moved:
        validate.refresh(conn, moved)
    rows = conn.execute(
        "SELECT s.name, s.kind, s.line, s.end_line, s.parent, s.language FROM symbols s"
        " JOIN files f ON f.id = s.file_id JOIN repositories r ON r.id = s.repository_id"
        " WHERE r.identity = ? AND f.path = ? ORDER BY s.line",
        (ident, t.rel),
    ).fetchall()
    st = conn.execute(
        "SELECT c.status FROM coverage c JOIN repositories r ON r.id = c.repository_id"
        " WHERE r.identity = ? AND c.scope = 'full'",
        (ident,),
    ).fetchone()
    after: After = None
    if root.path == sess.here().path:
        svc = sess.service(False)
        co = svc.needs_warming()
        if co is not None:  # the warming rules: leftover indexing goes to the warmer

            def after() -> None:
                start_warmer(svc.conn, co)

    syms = [Sym(str(a), str(b), int(c), d, e, str(f)) for a, b, c, d, e, f in rows]
    return FileSymbols(syms, bool(moved), str(st[0]) if st else "warming", ident, after)


def _parsed_in_memory(t: Target, lang: str, identity: str) -> FileSymbols:
    from rq_engine.index.parse import OK, Job, max_file_bytes, parse_job

    p = parse_job(t.root.real, Job(t.rel, lang, None), max_file_bytes())
    if p.status != OK:
        raise ToolError(f"{t.rel}: not parsed ({p.status}{': ' + p.reason if p.reason else ''})")
    syms = [Sym(r[0], r[1], r[3], r[4], r[5], lang) for r in p.rows]
    return FileSymbols(sorted(syms, key=lambda s: s.line), True, "never", identity, None)


def outline(syms: list[Sym]) -> list[dict[str, Any]]:
    """Definitions nested by span: a definition inside another's lines is its child."""
    roots: list[dict[str, Any]] = []
    stack: list[tuple[Sym, dict[str, Any]]] = []
    for s in sorted(syms, key=lambda s: (s.line, -s.last)):
        node: dict[str, Any] = {
            "name": s.name,
            "qualified": s.qualified,
            "kind": s.kind,
            "line": s.line,
            "end_line": s.end_line,
        }
        while stack and not (stack[-1][0].line <= s.line and s.last <= stack[-1][0].last):
            stack.pop()
        if stack:
            stack[-1][1].setdefault("children", []).append(node)
        else:
            roots.append(node)
        stack.append((s, node))
    return roots


def symbols_in_file(sess: Session, args: dict[str, Any]) -> tuple[Reply, After]:
    t = sess.resolve(args["path"])
    fs = file_symbols(sess, t)
    note = "" if fs.syms else "no definitions in this file (or it is skipped: binary, too big)"
    reply: Reply = {
        "path": sess.display(t),
        "repository": fs.identity,
        "language": registry.language_for_path(t.rel) or "",
        "coverage": fs.coverage,
        "reparsed": fs.reparsed,
        "count": len(fs.syms),
        "symbols": outline(fs.syms),
        **bound.envelope(note),
    }
    bound.fit_tree(reply, "symbols", bound.max_chars())
    return reply, fs.after


def show_definition(sess: Session, args: dict[str, Any]) -> tuple[Reply, After]:
    qualified: str | None = args.get("qualified")
    path: str | None = args.get("path")
    line: int | None = args.get("line")
    max_lines: int = args.get("max_lines", DEFAULT_MAX_LINES)
    if qualified is None and (path is None or line is None):
        raise ToolError("give `qualified`, or `path` and `line`")
    if qualified is not None and line is not None:
        raise ToolError("line: give either `qualified` or `path` and `line`, not both")
    if qualified is not None:
        return _by_name(sess, qualified.strip(), path, max_lines)
    assert path is not None and line is not None
    return _by_line(sess, path, line, max_lines)


def _by_line(sess: Session, path: str, line: int, max_lines: int) -> tuple[Reply, After]:
    t = sess.resolve(path)
    fs = file_symbols(sess, t)
    spanning = [s for s in fs.syms if s.line <= line <= s.last]
    shown = sess.display(t)
    ident = fs.identity or ""
    if not spanning:
        near = sorted(fs.syms, key=lambda s: min(abs(s.line - line), abs(s.last - line)))
        alts = [_sym_json(s, shown, ident) for s in near[:ALTERNATIVES]]
        note = f"no definition spans line {line} of {shown}; the nearest are in `alternatives`"
        return _miss(fs.coverage, "miss", note, alts), fs.after
    best = max(spanning, key=lambda s: (s.line, -s.last))  # the innermost
    text = sess.read(t)
    return _source(fs.coverage, _sym_json(best, shown, ident), text, max_lines, []), fs.after


def _by_name(
    sess: Session, qualified: str, path: str | None, max_lines: int
) -> tuple[Reply, After]:
    if not qualified:
        raise ToolError("qualified: must not be blank")
    svc = sess.service()
    answer = svc.answer(qualified, limit=NAME_POOL, wait=sess.wait, cancel=sess.cancel)

    def after() -> None:
        svc.finish(answer)

    hits = answer.hits
    if path is not None:
        want = sess.resolve(path)
        hits = [h for h in hits if sess.readable(h.abspath).abspath == want.abspath]
    found = _named(hits, qualified)
    if not found:
        alts = [_hit_json(h, svc.cwd) for h in hits[:ALTERNATIVES]]
        if answer.outcome == "unread":  # no file here rq reads: not absent, not "yet" (exit 3)
            outcome, note = "nothing_readable", answer.note
        elif answer.outcome == "miss" or (answer.hits and answer.state != "warming"):
            outcome = "miss"
            note = f"no definition is named {qualified!r}" + (
                "; the closest are in `alternatives`" if alts else ""
            )
        else:
            outcome = "not_yet"
            note = answer.note or "the index is still warming: no such definition yet"
        reply = _miss(answer.state, outcome, note, alts)
        return {**reply, **bound.unread(answer.not_read, outcome)}, after
    best = found[0]
    t = sess.readable(best.abspath)
    alts = [_hit_json(h, svc.cwd) for h in found[1 : 1 + ALTERNATIVES]]
    reply = _source(answer.state, _hit_json(best, svc.cwd), sess.read(t), max_lines, alts)
    if alts:
        bound.add_note(reply, f"{len(found)} definitions have this name; the others are listed")
    return reply, after


def _named(hits: list[Hit], q: str) -> list[Hit]:
    """The hits that are the definition `q` names: the qualified name itself, then ignoring
    case, then a qualified name ending in it, then the bare name — the first tier found."""
    low = q.lower()
    tiers = (
        lambda h: h.qualified == q,
        lambda h: h.qualified.lower() == low,
        lambda h: any(h.qualified.endswith(sep + q) for sep in (".", "::", "#")),
        lambda h: h.name == q,
    )
    for test in tiers:
        got = [h for h in hits if test(h)]
        if got:
            return got
    return []


def _sym_json(s: Sym, path: str, repository: str) -> dict[str, Any]:
    return {
        "path": path,
        "line": s.line,
        "end_line": s.end_line,
        "name": s.name,
        "qualified": s.qualified,
        "kind": s.kind,
        "language": s.language,
        "repository": repository,
    }


def _hit_json(h: Hit, cwd: str) -> dict[str, Any]:
    return {
        "path": display_path(h, cwd),
        "line": h.line,
        "end_line": h.end_line,
        "name": h.name,
        "qualified": h.qualified,
        "kind": h.kind,
        "language": h.language,
        "repository": h.repository,
    }


def _miss(coverage: str, outcome: str, note: str, alts: list[dict[str, Any]]) -> Reply:
    return {
        "coverage": coverage,
        "outcome": outcome,
        "definition": None,
        "source": "",
        "first_line": None,
        "last_line": None,
        "alternatives": alts,
        **bound.envelope(note),
    }


def _source(
    coverage: str, definition: dict[str, Any], text: str, max_lines: int, alts: list[Any]
) -> Reply:
    """The reply holding a definition's lines, cut to `max_lines` and the budget."""
    lines = text.splitlines(keepends=True)
    start = int(definition["line"])
    end = definition["end_line"] if definition["end_line"] is not None else start
    want = lines[start - 1 : max(start, min(int(end), len(lines)))]
    reply: Reply = {
        "coverage": coverage,
        "outcome": "hit",
        "definition": definition,
        "source": "",
        "first_line": start,
        "last_line": start - 1,
        "alternatives": alts,
        **bound.envelope(),
    }
    room = bound.max_chars() - bound.size(reply) - bound.SLACK
    shown, cut = bound.cut_text(want[:max_lines], room)
    reply["source"] = "".join(shown)
    reply["last_line"] = start + len(shown) - 1
    left = len(want) - len(shown)
    if cut or left:
        reply["truncated"] = True
        reply["omitted"] = left
        why = "the character budget" if cut else f"max_lines={max_lines}"
        bound.add_note(
            reply,
            f"source cut by {why}: lines {start}-{reply['last_line']} of {start}-{start + len(want) - 1}"
            f"; read on from line {reply['last_line'] + 1}.",
        )
    return reply
