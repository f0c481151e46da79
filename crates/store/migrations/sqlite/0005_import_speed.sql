-- The results store, version 5: what an import writes a report, halved,
-- and the figures of each run kept (below).
-- A metric is kept once, in its key's order (`WITHOUT ROWID`: no table of
-- rows beside the key's index), and the indexes no query reads are gone:
-- metrics by name (an export reads every metric of the instances it
-- selects) and instances by report hash (a run's failed instances find
-- their log tails from the run).
-- On 100,000 reports of 8 metrics each this took 2.4 million index entries
-- to write down to 0.8 million (docs/results.md, "Speed").

CREATE TABLE metrics_v5 (
    instance_id INTEGER NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    PRIMARY KEY (instance_id, name)
) WITHOUT ROWID;
INSERT INTO metrics_v5 (instance_id, name, value, unit) SELECT instance_id, name, value, unit FROM metrics;
DROP TABLE metrics;
ALTER TABLE metrics_v5 RENAME TO metrics;

DROP INDEX IF EXISTS instances_by_hash;

-- The figures each run keeps (store/run_figures.rs): per rule (`strict` 1:
-- mlb's stricter one), bench and config, the items/s and joules per item
-- of the instances that count, as little-endian f64 bytes. Comparisons
-- and histories read a row per run and bench, not per instance. The runs
-- imported before are filled by the first writer that opens the store.
CREATE TABLE run_figures (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    strict INTEGER NOT NULL,
    bench TEXT NOT NULL,
    config TEXT NOT NULL,
    speeds BLOB NOT NULL,
    joules BLOB NOT NULL,
    PRIMARY KEY (run_id, strict, bench, config)
);

-- The failed instances alone, by run: the list of runs counts them for
-- each run (a scan of every instance, 40 ms on 100,000, became a read of
-- the few that failed). An import adds an entry for a failed instance only.
CREATE INDEX instances_failed ON instances (run_id) WHERE outcome = 'failed';
