"""Command-line face: argument parsing, dispatch, one-shot output, exit codes."""
