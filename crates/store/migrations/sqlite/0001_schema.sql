-- The results store, version 1: systems, runs, instances, their metrics in
-- a long table, and the labels of runs. docs/results.md describes each column.
-- Times are RFC 3339 text in UTC, to the microsecond (`2026-11-24T13:30:48.000000Z`):
-- they sort as they read.
-- Flags are integers 0 and 1.

-- What the store says of itself: `mlb_version` (the mlb that last migrated
-- it) and `schema_version`.
CREATE TABLE store_info (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);

-- A system: a name (`--system NAME`, else system.json's host name) and the
-- identity system.json gives. A new driver or runtime on the same name is
-- a new row with that name: queries by system go by `name`.
CREATE TABLE systems (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    -- sha256 (hex) of the name and the identity columns below.
    fingerprint TEXT NOT NULL UNIQUE,
    host TEXT NOT NULL,
    cpu TEXT NOT NULL,
    gpu_model TEXT NOT NULL,
    gpu_count INTEGER NOT NULL,
    driver TEXT NOT NULL,
    -- CUDA or ROCm version, framework, container runtime, as one text.
    runtime_versions TEXT NOT NULL,
    -- system.json as read (JSON text), when the run had one.
    description TEXT
);

-- A run: one output folder (a folder holding report files) of one system.
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    system_id INTEGER NOT NULL REFERENCES systems (id),
    -- The folder imported, absolute.
    folder TEXT NOT NULL,
    -- The reports' distinct `run_id`s, comma-separated.
    run_ids TEXT NOT NULL,
    -- The earliest `start_time` of its reports.
    started_at TEXT,
    imported_at TEXT NOT NULL,
    mlb_version TEXT,
    -- sha256 (hex) of the jobs file, when mlb imported the run it launched.
    jobs_hash TEXT,
    image_digest TEXT,
    -- docker, singularity, or none.
    runtime TEXT,
    -- The nodes its instances ran on, comma-separated.
    nodes TEXT NOT NULL,
    isolation TEXT,
    UNIQUE (system_id, folder)
);

-- Labels of a run (`--tag KEY=VALUE`).
CREATE TABLE tags (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);

-- An instance: one report (one entry of a report file).
CREATE TABLE instances (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- sha256 (hex) of the report file's bytes: a file stored is skipped.
    report_hash TEXT NOT NULL,
    -- The entry's place in its file (0 for a file of one report).
    entry INTEGER NOT NULL,
    -- The file, relative to the run's folder.
    file TEXT NOT NULL,
    -- The bench (job) name; `(null)` for the original's null-name records.
    bench TEXT NOT NULL,
    suite TEXT,
    -- The config's scalar arguments as a JSON object, keys sorted (`{}`: none).
    config TEXT NOT NULL,
    -- The visible devices (`vcd`: `3`, `0,1,2,3`).
    device TEXT,
    -- The device model.
    gpu TEXT,
    -- The Slurm node, else the host name.
    node TEXT,
    -- `completed`, or `failed` (completed false, or a failure record).
    outcome TEXT NOT NULL,
    failure_cause TEXT,
    failure_message TEXT,
    -- The first check of `mlb report` the entry fails (`incomplete`,
    -- `nan_loss`, `skipped_nan_loss`, `infinite_loss`, `no_throughput`), as
    -- judged over the folder imported; NULL when it passes both rules. The
    -- original's rule fails only `incomplete` and `nan_loss`.
    fails_check TEXT,
    started_at TEXT,
    -- train_item.avg (NULL when missing or not finite).
    items_per_s REAL,
    -- The last finite batch loss.
    loss REAL,
    joules_per_item REAL,
    -- 1 when the energy is the GPUs' own counters, 0 the host's packages.
    gpu_energy INTEGER NOT NULL,
    -- 1 when it throttled, ran on a degraded link or saw XID errors.
    flagged INTEGER NOT NULL,
    UNIQUE (report_hash, entry)
);

-- Every finite number of an instance, by name (`train_item.avg`,
-- `train.max`, `loss.last`, `energy.joules_per_item`, ...).
CREATE TABLE metrics (
    instance_id INTEGER NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    PRIMARY KEY (instance_id, name)
);
