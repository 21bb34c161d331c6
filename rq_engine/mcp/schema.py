"""The five MCP tools as data: names, descriptions written for a model, input and output JSON schemas.

The server checks arguments against these input schemas (mcp/arguments.py) and
lists them as they are. Stdlib + rq_engine.core only (the engine process
imports the limits from here).
"""

from __future__ import annotations

from typing import Any

from rq_engine.core.defaults import MCP_MAX_LIMIT as MAX_LIMIT
from rq_engine.core.defaults import MCP_TEXT_LIMIT as TEXT_DEFAULT_LIMIT
from rq_engine.core.defaults import SYMBOL_LIMIT as DEFAULT_LIMIT
from rq_engine.core.model import Kind
from rq_engine.core.query import MAX_QUERY_CHARS

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "MAX_QUERY_CHARS", "TEXT_DEFAULT_LIMIT"]
DEFAULT_MAX_LINES = 200
MAX_LINES = 2000
KINDS = [str(k) for k in Kind]
RANKERS = ["text-ranker/bm25-v1", "text-ranker/full-scan-v1"]  # the first is the default

Schema = dict[str, Any]

COVERAGE: Schema = {
    "type": "string",
    "enum": ["complete", "warming", "never"],
    "description": "The index behind this answer: complete (every file indexed, so a miss is"
    " definitive), warming (indexing under way: no match means not yet), never (not indexed"
    " yet: the directory was scanned live or a warmer is starting).",
}
BUDGET: dict[str, Schema] = {
    "truncated": {
        "type": "boolean",
        "description": "True when the reply was cut to its character budget (RQ_MCP_MAX_CHARS);"
        " what was cut is counted in `omitted`. A cut is never an empty answer.",
    },
    "omitted": {"type": "integer", "minimum": 0, "description": "Items cut by the budget."},
    "note": {"type": "string", "description": "One line on anything the model should know."},
}
_NULLABLE_INT: Schema = {"type": ["integer", "null"]}
_SPAN: dict[str, Schema] = {
    "path": {"type": "string", "description": "File, relative to the server's directory."},
    "line": {"type": "integer", "description": "First line of the definition (1-based)."},
    "end_line": {**_NULLABLE_INT, "description": "Last line of the definition (inclusive)."},
    "name": {"type": "string"},
    "qualified": {"type": "string", "description": "Name with its enclosing scopes."},
    "kind": {"type": "string", "description": f"One of {', '.join(KINDS)}."},
    "language": {"type": "string"},
    "repository": {"type": "string"},
}
_SPAN_REQUIRED = list(_SPAN)
RESULT: Schema = {
    "type": "object",
    "properties": {
        **_SPAN,
        "score": {"type": "number", "description": "The rq score (higher is better)."},
        "margin": {
            "type": ["number", "null"],
            "description": "Score over the next result; null when the next one is not known.",
        },
        "explain": {
            "type": "array",
            "description": "The score's parts, with `explain`: they add up to `score`.",
            "items": {
                "type": "object",
                "properties": {"feature": {"type": "string"}, "value": {"type": "number"}},
                "required": ["feature", "value"],
            },
        },
    },
    "required": [*_SPAN_REQUIRED, "score", "margin"],
}
DEFINITION: Schema = {"type": "object", "properties": _SPAN, "required": _SPAN_REQUIRED}


def _output(props: dict[str, Schema], required: list[str], **extra: Any) -> Schema:
    return {
        "type": "object",
        "properties": {"coverage": COVERAGE, **props, **BUDGET},
        "required": ["coverage", *required, "truncated", "omitted", "note"],
        **extra,
    }


_OUTCOME: Schema = {
    "type": "string",
    "enum": ["hit", "miss", "not_yet", "filtered_out", "nothing_readable"],
    "description": "hit; miss (definitive: the index is complete and nothing matches);"
    " not_yet (the index is still warming: nothing YET, retry or see index_status);"
    " filtered_out (matches exist but none of the best candidates passes the filters);"
    " nothing_readable (no file here is in a language rq reads: `not_read` names them).",
}
# What a miss says of the files rq has no plugin for, as `rq -q --json` does.
_UNREAD: dict[str, Schema] = {
    "not_read": {"type": "object", "additionalProperties": {"type": "integer"}},
    "nothing_readable": {"type": "boolean"},
}
_LIMIT_REACHED: Schema = {
    "type": "boolean",
    "description": "True when `limit` results came back: more may exist (raise `limit`).",
}
_PATH_ARG: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "description": "A file inside the repository, relative to the server's directory (as"
    " find_symbol returns paths) or absolute.",
}

FIND_SYMBOL: Schema = {
    "description": "Find where a symbol (class, function, method, type, constant…) is defined,"
    " ranked exactly as `rq -q` ranks: exact names first, then prefixes, fuzzy subsequences"
    " (`refundproc` finds RefundProcessor) and typos (`sleect`); a qualified query such as"
    " `QuerySet.filter`, `io.Reader` or `Foo::Bar#baz` narrows by scope. Use it instead of"
    " grep to jump to a definition. Each result gives path, line and end_line (the span),"
    " kind, language, score and its margin over the next result (a large margin: the top"
    " result is the clear answer). Files edited since they were indexed are re-read first,"
    " so a definition you just wrote is found. `outcome` not_yet means the index is still"
    " warming: no match yet, not absent.",
    "input": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "description": "A name, a fragment, a typo or a qualified name.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": "At most this many results.",
            },
            "kinds": {
                "type": "array",
                "items": {"type": "string", "enum": KINDS},
                "minItems": 1,
                "uniqueItems": True,
                "description": "Keep only definitions of these kinds.",
            },
            "path_prefix": {
                "type": "string",
                "minLength": 1,
                "maxLength": 4096,
                "description": "Keep only results whose path starts with this (e.g. `src/api/`).",
            },
            "anchor": {
                "type": "string",
                "minLength": 3,
                "maxLength": 4096,
                "description": "Where you are looking from, `FILE:LINE` or `FILE:LINE:COL`"
                " (a path relative to the repository, as results give it): of equally good"
                " matches, the definitions enclosing that line, then those near that file,"
                " rank first (the `enclosing` and `proximity` parts of the breakdown).",
            },
            "all_repos": {
                "type": "boolean",
                "description": "Search every indexed repository (only when the server was"
                " started with `rq --mcp --all-repos`; that is then the default).",
            },
            "explain": {
                "type": "boolean",
                "default": False,
                "description": "Add each result's score breakdown.",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "output": _output(
        {
            "query": {"type": "string"},
            "outcome": _OUTCOME,
            "results": {"type": "array", "items": RESULT},
            "limit_reached": _LIMIT_REACHED,
            **_UNREAD,
        },
        ["query", "outcome", "results", "limit_reached"],
    ),
}

_NODE: Schema = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "qualified": {"type": "string"},
        "kind": {"type": "string"},
        "line": {"type": "integer"},
        "end_line": _NULLABLE_INT,
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "children_omitted": {
            "type": "integer",
            "description": "Children left out by the budget (read them with show_definition).",
        },
    },
    "required": ["name", "qualified", "kind", "line", "end_line"],
}
SYMBOLS_IN_FILE: Schema = {
    "description": "Outline of one source file: its definitions nested by lexical containment"
    " (class > method > inner function) with their line spans, from the index. A file changed"
    " since it was indexed is re-parsed first (`reparsed`). Use it to see a file's structure"
    " before reading it, then show_definition to read one definition. A big outline keeps"
    " every top-level definition and as many nested ones as the budget allows.",
    "input": {
        "type": "object",
        "properties": {"path": _PATH_ARG},
        "required": ["path"],
        "additionalProperties": False,
    },
    "output": _output(
        {
            "path": {"type": "string"},
            "repository": {"type": ["string", "null"]},
            "language": {"type": "string"},
            "reparsed": {
                "type": "boolean",
                "description": "The file had changed since it was indexed and was re-parsed now.",
            },
            "count": {"type": "integer", "description": "Definitions in the file."},
            "symbols": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        },
        ["path", "language", "reparsed", "count", "symbols"],
        **{"$defs": {"node": _NODE}},
    ),
}

SHOW_DEFINITION: Schema = {
    "description": "The source text of one definition: give `qualified` (a qualified name as"
    " find_symbol returns it, e.g. `QuerySet.filter`; `path` then picks among several), or"
    " `path` and `line` (any line inside the definition: the innermost one spanning it is"
    " shown). Bounded to `max_lines` lines and the reply's character budget; `truncated`"
    " says the source was cut (read on from `last_line` + 1). A miss lists `alternatives`.",
    "input": {
        "type": "object",
        "properties": {
            "qualified": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "description": "Qualified name of the definition.",
            },
            "path": _PATH_ARG,
            "line": {"type": "integer", "minimum": 1, "description": "A line inside it."},
            "max_lines": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LINES,
                "default": DEFAULT_MAX_LINES,
                "description": "Show at most this many lines.",
            },
        },
        "additionalProperties": False,
    },
    "output": _output(
        {
            "outcome": {
                "type": "string",
                "enum": ["hit", "miss", "not_yet", "nothing_readable"],
                "description": "hit; miss (no such definition); not_yet (the index is warming);"
                " nothing_readable (no file here is in a language rq reads).",
            },
            **_UNREAD,
            "definition": {"anyOf": [DEFINITION, {"type": "null"}]},
            "source": {"type": "string", "description": "The lines shown, as in the file."},
            "first_line": _NULLABLE_INT,
            "last_line": {**_NULLABLE_INT, "description": "The last line shown."},
            "alternatives": {"type": "array", "items": DEFINITION},
        },
        ["outcome", "definition", "source", "first_line", "last_line", "alternatives"],
    ),
}

_TEXT_RESULT: Schema = {
    "type": "object",
    "properties": {
        **_SPAN,
        "score": {"type": "number"},
        "id": {"type": "string", "description": "Stable node id (survives edits)."},
        "chain": {
            "type": "array",
            "description": "The file, then each enclosing definition.",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "kind": {"type": "string"},
                    "name": {"type": "string"},
                },
                "required": ["id", "kind", "name"],
            },
        },
        "coverage": {
            "type": "number",
            "description": "Share of the query's words this result matches (0-1); not the"
            " index coverage.",
        },
    },
    "required": [*_SPAN_REQUIRED, "score", "id", "chain", "coverage"],
}
SEARCH_TEXT: Schema = {
    "description": "Rank definitions and files by several words describing what you look for"
    " (`template does not exist`, `parse http header`), matched against their names,"
    " qualified names, kinds and paths — not file contents. Use it when you do not know the"
    " symbol's name; use find_symbol when you do. The same ranker as `rq --text`.",
    "input": {
        "type": "object",
        "properties": {
            "words": {
                "type": "string",
                "minLength": 1,
                "maxLength": 1024,
                "description": "A few words, as you would describe the code.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": TEXT_DEFAULT_LIMIT,
                "description": "At most this many results.",
            },
            "ranker": {
                "type": "string",
                "enum": RANKERS,
                "description": f"Ranker profile (default {RANKERS[0]}).",
            },
        },
        "required": ["words"],
        "additionalProperties": False,
    },
    "output": _output(
        {
            "query": {"type": "string"},
            "ranker": {"type": "string"},
            "outcome": {"type": "string", "enum": ["hit", "miss", "not_yet", "nothing_readable"]},
            "results": {"type": "array", "items": _TEXT_RESULT},
            **_UNREAD,
            "limit_reached": _LIMIT_REACHED,
            "candidates_cut": {
                "type": "boolean",
                "description": "The ranker's candidate ceiling cut some candidates.",
            },
        },
        ["query", "ranker", "outcome", "results", "limit_reached", "candidates_cut"],
    ),
}

_REPO_ROW: Schema = {
    "type": "object",
    "properties": {
        "repository": {"type": "string"},
        "coverage": COVERAGE,
        "files": {"type": "integer"},
        "symbols": {"type": "integer"},
        "roots": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["repository", "coverage", "files", "symbols", "roots"],
}
INDEX_STATUS: Schema = {
    "description": "The state of the index behind these tools: coverage (complete, warming,"
    " never), file and definition counts, whether the last 'nothing moved' check is recent,"
    " and what warming is doing now. Call it when a tool answers not_yet.",
    "input": {"type": "object", "properties": {}, "additionalProperties": False},
    "output": _output(
        {
            "root": {"type": "string", "description": "The repository served."},
            "repository": {"type": ["string", "null"]},
            "all_repos": {"type": "boolean"},
            "files_indexed": {"type": "integer"},
            "files_seen": {"type": "integer"},
            "files_skipped": {"type": "integer"},
            "files_failed": {"type": "integer"},
            "symbols": {"type": "integer"},
            "fresh": {
                "type": "boolean",
                "description": "git confirmed recently that nothing moved; otherwise the next"
                " call that needs it asks git (edits are picked up either way).",
            },
            "warming": {"type": "boolean", "description": "A warmer is indexing right now."},
            "warmer_pid": _NULLABLE_INT,
            "doing": {"type": "string", "description": "What warming is doing, in words."},
            "updated_at": {**_NULLABLE_INT, "description": "Unix time of the last change."},
            "index_path": {"type": "string"},
            "repositories": {"type": "array", "items": _REPO_ROW},
        },
        ["root", "all_repos", "files_indexed", "symbols", "fresh", "warming", "doing"],
    ),
}

TOOLS: dict[str, Schema] = {
    "find_symbol": FIND_SYMBOL,
    "symbols_in_file": SYMBOLS_IN_FILE,
    "show_definition": SHOW_DEFINITION,
    "search_text": SEARCH_TEXT,
    "index_status": INDEX_STATUS,
}
TITLES = {
    "find_symbol": "Find a definition",
    "symbols_in_file": "Outline a file",
    "show_definition": "Show a definition's source",
    "search_text": "Search definitions by words",
    "index_status": "Index status",
}
