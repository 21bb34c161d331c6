"""Text ranking over the code graph: realization, lexical contract, rankers (seed 001)."""
