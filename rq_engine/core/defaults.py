"""How many results each face answers with when not told: one home for the numbers
`rq -q`, `rq --text`, the MCP tools and the picker share (docs/cli.md and the MCP
schema show them)."""

from __future__ import annotations

#: definitions `rq -q` (and the engine's search) returns without --limit
SYMBOL_LIMIT = 20
#: results `rq --text` returns without --limit
TEXT_LIMIT = 20
#: results MCP search_text returns without `limit`: an agent's context is the budget
MCP_TEXT_LIMIT = 10
#: the most an MCP call may ask for
MCP_MAX_LIMIT = 100
#: rows the picker lists: more than `rq -q`'s, page down is a reason to open it
PICKER_LIMIT = 50
