"""Settings read from the environment (RQ_WAIT_BUDGET_MS, RQ_WARM_BUDGET_MS, RQ_WARM_RECHECK_MS…). Stdlib only."""

from __future__ import annotations

import os


def env_ms(name: str, default: int) -> int:
    """A millisecond setting: a whole number of 0 or more; unset or malformed keeps `default`."""
    raw = os.environ.get(name, "").strip()
    try:
        return max(0, int(raw)) if raw else default
    except ValueError:
        return default
