"""`python -m rq_engine` runs the CLI as the `rq` script does (main.entry); the
detached warmer re-execs this way."""

from rq_engine.main import entry

entry()
