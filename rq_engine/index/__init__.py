"""Indexing: the git-exact walker, the incremental indexer, coverage. Imports nothing eagerly."""
