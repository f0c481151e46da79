-- The results store, version 4: an instance is stored once, whatever
-- version of its report file it came in (docs/results.md, "Importing
-- again"). Its identity is its run folder and the fields that name it
-- (bench, config, device, node, run id, start, unique id, and its place
-- among entries alike in all of these), not its file's bytes: the original
-- suite's per-host file, appended to and imported again, once stored every
-- entry twice. A report file's text is kept once per run and file name.

-- sha256 (hex) of the run folder and the fields that name the instance;
-- NULL for an instance stored by an older mlb (its run's next import
-- replaces it).
ALTER TABLE instances ADD COLUMN identity TEXT;
ALTER TABLE instances DROP CONSTRAINT instances_report_hash_entry_key;
CREATE UNIQUE INDEX instances_by_identity ON instances (identity);
-- `mlb serve` finds a log tail's instance by file hash and entry.
CREATE INDEX instances_by_hash ON instances (report_hash, entry);

-- Of the versions of one file an older mlb kept, the last.
DELETE FROM report_texts a USING report_texts b
WHERE a.run_id = b.run_id AND a.file = b.file AND a.ctid < b.ctid;
ALTER TABLE report_texts DROP CONSTRAINT report_texts_pkey;
ALTER TABLE report_texts ADD PRIMARY KEY (run_id, file);
CREATE INDEX report_texts_by_hash ON report_texts (report_hash);
