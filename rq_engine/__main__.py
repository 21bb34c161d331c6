"""`python -m rq_engine` runs the CLI (the detached warmer re-execs this way)."""

from rq_engine.main import main

raise SystemExit(main())
