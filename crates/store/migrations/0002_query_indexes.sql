-- The indexes of `mlb db` queries: a system's runs over time, a bench's
-- (and a config's) instances, a metric across instances.

CREATE INDEX systems_by_name ON systems (name);
CREATE INDEX runs_by_system_time ON runs (system_id, started_at);
CREATE INDEX runs_by_time ON runs (started_at);
CREATE INDEX instances_by_run ON instances (run_id);
CREATE INDEX instances_by_bench_config ON instances (bench, config);
CREATE INDEX metrics_by_name ON metrics (name);
CREATE INDEX tags_by_key_value ON tags (key, value);
