-- The results store, version 8: collecting results from many sites
-- (`mlb serve --accept-push`, docs/serve.md). Push keys (stored hashed),
-- the log of every push, the links that show one run, and each pushed
-- run's key and embargo.

-- A push key: one per submitting site, naming the systems it may push for.
CREATE TABLE push_keys (
    id INTEGER PRIMARY KEY,
    -- Who holds it (`mlb db keys add NAME`), unique.
    name TEXT NOT NULL UNIQUE,
    -- sha256 (hex) of the key: the key itself is never stored.
    key_hash TEXT NOT NULL UNIQUE,
    -- The system names it may push for, as a JSON array.
    systems TEXT NOT NULL,
    -- The most pushes it may make in a minute.
    per_minute INTEGER NOT NULL,
    -- The most bytes (sent) and files one of its pushes may hold, below
    -- the server's own bounds; NULL: the server's.
    max_bytes INTEGER,
    max_files INTEGER,
    made_at TEXT NOT NULL,
    -- When `mlb db keys revoke` revoked it; NULL while it holds.
    revoked_at TEXT
);

-- Every push a known key made, and its outcome (a request naming no known
-- key is logged on the server's stderr only: it cannot write the store).
CREATE TABLE push_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    key_id INTEGER NOT NULL REFERENCES push_keys (id),
    -- The address it came from.
    peer TEXT NOT NULL,
    -- The system it pushed for, and the run folder's name.
    system TEXT,
    folder TEXT,
    -- The bytes received and the files unpacked.
    bytes INTEGER NOT NULL,
    files INTEGER NOT NULL,
    -- The HTTP status answered, and what it said.
    status INTEGER NOT NULL,
    outcome TEXT NOT NULL
);
CREATE INDEX push_log_by_key ON push_log (key_id, at);

-- A link that shows one run without the server's token (`mlb db share`).
CREATE TABLE shares (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- sha256 (hex) of the link's secret.
    token_hash TEXT NOT NULL UNIQUE,
    made_at TEXT NOT NULL,
    revoked_at TEXT
);

-- The key that pushed a run (NULL: imported on this host), and the time
-- until which only that key may see it (NULL: public).
ALTER TABLE runs ADD COLUMN pushed_by INTEGER REFERENCES push_keys (id);
ALTER TABLE runs ADD COLUMN embargo_until TEXT;
CREATE INDEX runs_by_embargo ON runs (embargo_until);
