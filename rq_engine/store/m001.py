"""The schema rq's first release created (step m001_initial, applied by store/schema.py).

Released: never edited. Every change since is a later step in store/migrations.py
(and a stored fact of a definition is declared in core/columns.py). Kept apart so
the steps read as the history they are.
"""

M001_INITIAL = """
CREATE TABLE repositories (
    id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL UNIQUE,          -- host/org/repo or local:/abs/path
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE checkouts (
    id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
    root_path TEXT NOT NULL UNIQUE,
    current_branch TEXT,
    indexed_at INTEGER
);

CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
    path TEXT NOT NULL,                     -- repo-relative, '/'-separated
    language TEXT,
    mtime INTEGER,                          -- unix nanoseconds (racy-edit protection)
    size INTEGER,
    content_hash TEXT,                      -- staleness detection
    indexed_at INTEGER,
    commit_time INTEGER,                    -- last git commit touching the file (recency)
    UNIQUE(repository_id, path)
);

CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_lower TEXT NOT NULL,
    kind TEXT NOT NULL,
    visibility TEXT NOT NULL DEFAULT 'unknown',
    language TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER,
    parent TEXT                             -- enclosing symbol's qualified name (lexical nesting)
);
CREATE INDEX idx_symbols_name_lower ON symbols(name_lower);
CREATE INDEX idx_symbols_repo_name ON symbols(repository_id, name_lower);
CREATE INDEX idx_symbols_file ON symbols(file_id);

-- Fuzzy candidate narrowing. detail=none: recall ORs single trigrams and never
-- reads positions (D20).
CREATE VIRTUAL TABLE symbols_fts USING fts5(
    name, content='symbols', content_rowid='id', tokenize='trigram', detail=none
);
-- The per-row triggers a cold pass suspends (drop, bulk insert, 'rebuild', recreate).
CREATE TRIGGER symbols_fts_ai AFTER INSERT ON symbols BEGIN
    INSERT INTO symbols_fts(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER symbols_fts_ad AFTER DELETE ON symbols BEGIN
    INSERT INTO symbols_fts(symbols_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER symbols_fts_au AFTER UPDATE OF name ON symbols BEGIN
    INSERT INTO symbols_fts(symbols_fts, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO symbols_fts(rowid, name) VALUES (new.id, new.name);
END;

CREATE TABLE coverage (
    id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
    scope TEXT NOT NULL DEFAULT 'full',     -- 'full' or a directory prefix
    status TEXT NOT NULL DEFAULT 'never' CHECK (status IN ('never', 'warming', 'complete')),
    files_seen INTEGER,
    files_indexed INTEGER,
    files_skipped INTEGER,
    files_failed INTEGER,
    updated_at INTEGER,
    UNIQUE(repository_id, scope)
);

-- Cumulative usage counters, read by `--usage`, never by ranking.
CREATE TABLE usage_daily (
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    flags TEXT NOT NULL,
    searches INTEGER NOT NULL,
    misses INTEGER NOT NULL,
    warming INTEGER NOT NULL,
    on_complete INTEGER NOT NULL,
    PRIMARY KEY (day, source, flags)
);

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
