-- The results store, version 6: two indexes an import wrote and no query
-- needs, gone (both backends).
-- - instances by run: `instances_figures` (run_id, bench, ...) begins with
--   the run, so it serves every look-up by run, and the cascade from runs.
-- - instances by bench and config: the figures of a bench are read from
--   `run_figures`, a bench's instances through their run.
-- Each was an entry per instance written; on 100,000 reports (2 CPUs) the
-- import took 4.9 s with them, 4.3 s without (docs/results.md, "Speed").

DROP INDEX IF EXISTS instances_by_run;
DROP INDEX IF EXISTS instances_by_bench_config;
