-- The results store, version 6: an index an import wrote and no query
-- needs, gone (both backends): instances by (bench, config). A bench's
-- figures are read from `run_figures`, a bench's instances through their
-- run (`instances_figures`, whose key begins with the run). Its entries,
-- a bench name and a config's JSON an instance, went in all over the
-- index; on 100,000 reports (2 CPUs, runs alternating) the import took
-- 4.09 s with it, 3.97 s without (docs/results.md, "Speed"). Instances by run stays:
-- its entries are appended in order, and the export and the run figures
-- read a run's instances in the order they were stored through it.

DROP INDEX IF EXISTS instances_by_bench_config;
