"""SQLite store: connections (WAL), named migrations, typed queries."""
