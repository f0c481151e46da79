-- The results store, version 4: an instance is stored once, whatever
-- version of its report file it came in (docs/results.md, "Importing
-- again"). Its identity is its run folder and the fields that name it
-- (bench, config, device, node, run id, start, unique id, and its place
-- among entries alike in all of these), not its file's bytes: the original
-- suite's per-host file, appended to and imported again, once stored every
-- entry twice. A report file's text is kept once per run and file name.
--
-- SQLite cannot drop a table's constraint: `instances` (and `metrics`,
-- which refers to it) and `report_texts` are made anew and filled from
-- the old ones, ids kept.

CREATE TABLE instances_v4 (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- sha256 (hex) of the run folder and the fields that name the
    -- instance; NULL for an instance stored by an older mlb (its run's
    -- next import replaces it).
    identity TEXT,
    -- sha256 (hex) of the report file's bytes as last imported.
    report_hash TEXT NOT NULL,
    entry INTEGER NOT NULL,
    file TEXT NOT NULL,
    bench TEXT NOT NULL,
    suite TEXT,
    config TEXT NOT NULL,
    device TEXT,
    gpu TEXT,
    node TEXT,
    outcome TEXT NOT NULL,
    failure_cause TEXT,
    failure_message TEXT,
    fails_check TEXT,
    started_at TEXT,
    items_per_s REAL,
    loss REAL,
    joules_per_item REAL,
    gpu_energy INTEGER NOT NULL,
    flagged INTEGER NOT NULL
);
INSERT INTO instances_v4 (id, run_id, identity, report_hash, entry, file, bench, suite, config, device, gpu, node,
    outcome, failure_cause, failure_message, fails_check, started_at, items_per_s, loss, joules_per_item,
    gpu_energy, flagged)
SELECT id, run_id, NULL, report_hash, entry, file, bench, suite, config, device, gpu, node, outcome, failure_cause,
    failure_message, fails_check, started_at, items_per_s, loss, joules_per_item, gpu_energy, flagged
FROM instances;

CREATE TABLE metrics_v4 (
    instance_id INTEGER NOT NULL REFERENCES instances_v4 (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    PRIMARY KEY (instance_id, name)
);
INSERT INTO metrics_v4 (instance_id, name, value, unit) SELECT instance_id, name, value, unit FROM metrics;

-- No table refers to `metrics`; once it is gone none refers to
-- `instances`, whose drop then deletes nothing else.
DROP TABLE metrics;
DROP TABLE instances;
-- Renaming a table renames the references to it (`metrics_v4`'s).
ALTER TABLE instances_v4 RENAME TO instances;
ALTER TABLE metrics_v4 RENAME TO metrics;

CREATE UNIQUE INDEX instances_by_identity ON instances (identity);
-- `mlb serve` finds a log tail's instance by file hash and entry.
CREATE INDEX instances_by_hash ON instances (report_hash, entry);
CREATE INDEX instances_figures ON instances (run_id, bench, fails_check, items_per_s, joules_per_item);
CREATE INDEX instances_by_run ON instances (run_id);
CREATE INDEX instances_by_bench_config ON instances (bench, config);
CREATE INDEX metrics_by_name ON metrics (name);

CREATE TABLE report_texts_v4 (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- The file, relative to the run's folder.
    file TEXT NOT NULL,
    -- sha256 (hex) of the file's bytes: a file whose hash is here is
    -- stored, and `mlb db import` skips it.
    report_hash TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (run_id, file)
);
-- Of the versions of one file an older mlb kept, the last.
INSERT OR REPLACE INTO report_texts_v4 (run_id, file, report_hash, body)
SELECT run_id, file, report_hash, body FROM report_texts ORDER BY rowid;
DROP TABLE report_texts;
ALTER TABLE report_texts_v4 RENAME TO report_texts;
CREATE INDEX report_texts_by_hash ON report_texts (report_hash);
