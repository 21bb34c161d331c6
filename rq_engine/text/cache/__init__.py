"""The persisted, identity-bound text-ranker cache (docs/text-ranking.md, "The cache")."""
