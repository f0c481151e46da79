-- The results store, version 5: the indexes no query reads are gone, so
-- that an import writes less, and the figures of each run kept (below).
-- Gone: metrics by name (an export reads every
-- metric of the instances it selects) and instances by report hash (a
-- run's failed instances find their log tails from the run). SQLite's
-- metrics also lose their row table (sqlite/0005_import_speed.sql);
-- PostgreSQL keeps rows in a heap and the key in its index, as before.

DROP INDEX IF EXISTS metrics_by_name;
DROP INDEX IF EXISTS instances_by_hash;

-- The figures each run keeps (store/run_figures.rs): per rule (`strict` 1:
-- mlb's stricter one), bench and config, the items/s and joules per item
-- of the instances that count, as little-endian f64 bytes. Comparisons
-- and histories read a row per run and bench, not per instance. The runs
-- imported before are filled by the first writer that opens the store.
CREATE TABLE run_figures (
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    strict BIGINT NOT NULL,
    bench TEXT NOT NULL,
    config TEXT NOT NULL,
    speeds BYTEA NOT NULL,
    joules BYTEA NOT NULL,
    PRIMARY KEY (run_id, strict, bench, config)
);

-- The failed instances alone, by run: the list of runs counts them for
-- each run (a scan of every instance, 40 ms on 100,000, became a read of
-- the few that failed). An import adds an entry for a failed instance only.
CREATE INDEX instances_failed ON instances (run_id) WHERE outcome = 'failed';
