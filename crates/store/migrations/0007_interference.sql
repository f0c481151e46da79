-- The results store, version 7: the cells of `mlb interfere`'s matrix
-- (`interference.json` beside a run folder's reports, docs/interfere.md),
-- one row per victim and aggressor (`mix`: the whole-node mix), written
-- by the import of the folder. The same text for both backends: SQLite
-- reads BIGINT as INTEGER and DOUBLE PRECISION as REAL.
CREATE TABLE interference_cells (
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    victim TEXT NOT NULL,
    aggressor TEXT NOT NULL,
    -- The victim's runs beside the aggressor that gave a rate.
    n BIGINT NOT NULL,
    -- The victim's rates alone and beside it, items/s: mean, sd, 95% CI.
    alone_mean DOUBLE PRECISION,
    alone_sd DOUBLE PRECISION,
    alone_low DOUBLE PRECISION,
    alone_high DOUBLE PRECISION,
    paired_mean DOUBLE PRECISION,
    paired_sd DOUBLE PRECISION,
    paired_low DOUBLE PRECISION,
    paired_high DOUBLE PRECISION,
    -- 1 - paired mean / alone mean, and its interval (Fieller's).
    slowdown DOUBLE PRECISION,
    slowdown_low DOUBLE PRECISION,
    slowdown_high DOUBLE PRECISION,
    -- 1 when the interval excludes 0.
    significant BIGINT NOT NULL,
    -- The least share of a victim's run its aggressors covered.
    overlap DOUBLE PRECISION,
    -- Where both ran (slot, CPUs, NUMA nodes, GPU, PCI address, PCIe
    -- switch), as JSON: {"victim": {...}, "aggressors": [{...}]}.
    placement TEXT NOT NULL,
    PRIMARY KEY (run_id, victim, aggressor)
);
