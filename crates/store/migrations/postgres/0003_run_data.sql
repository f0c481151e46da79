-- The results store, version 3: what a run's page shows beyond the figures
-- (`mlb serve`, docs/serve.md), kept in the store so that no page reads a
-- file outside it. docs/results.md describes each column.

-- Each report file as imported: its text, deflated (zlib). A file whose hash
-- is here is stored: `mlb db import` skips it.
CREATE TABLE report_texts (
    -- sha256 (hex) of the file's bytes (as instances.report_hash).
    report_hash TEXT PRIMARY KEY NOT NULL,
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- The file, relative to the run's folder.
    file TEXT NOT NULL,
    body BYTEA NOT NULL
);
CREATE INDEX report_texts_by_run ON report_texts (run_id);

-- The end of a failed instance's log (its record's `log`), as found at import.
CREATE TABLE log_tails (
    report_hash TEXT NOT NULL,
    entry BIGINT NOT NULL,
    -- The log file as the record names it.
    log TEXT NOT NULL,
    -- Its last 16 KiB (UTF-8, invalid bytes replaced).
    tail TEXT NOT NULL,
    PRIMARY KEY (report_hash, entry)
);

-- Documents of a run folder beside its reports (`acceptance.json`), as read.
CREATE TABLE run_documents (
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);

-- The figures of `mlb db compare` and `history` (and `mlb serve`'s compare
-- and history pages) read these columns of every instance of the systems
-- asked for: from this index alone, not from the wide rows.
CREATE INDEX instances_figures ON instances (run_id, bench, fails_check, items_per_s, joules_per_item);
