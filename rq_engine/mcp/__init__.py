"""The MCP face: `rq --mcp` serves the engine's calls to coding agents over stdio.

A face like rq_engine.cli: the engine's core, store, index, search and text
packages never import it, and `rq -q` never loads it (nor the `mcp` SDK,
~1 s to import). Modules: server.py (the SDK wiring, the one module importing
`mcp`), schema.py (tool names, descriptions, JSON schemas), arguments.py
(checking a call against them), channel.py (the
server's side of the engine process), engine.py (the engine process itself),
scope.py (what a call may read), find.py / files.py / text.py / status.py (the
tools), bound.py (character budgets and truncation).
"""
