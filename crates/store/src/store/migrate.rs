//! The store's schema and its versions: migrations in `crates/store/migrations/`,
//! portable SQL where both backends read the same text, else one file per
//! backend (`sqlite/`, `postgres/`: the same tables in each backend's
//! types), applied by sqlx's migrator and recorded in its
//! `_sqlx_migrations` table.
//!
//! Opening a store made by a newer mlb (a schema version past the last one
//! here) is refused, naming both versions; an older store is migrated, an
//! SQLite file copied first to `FILE.schema-N.bak` beside it (N: its
//! version before).

use super::error::StoreError;
use super::{Backend, Store};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// One migration: version, description, SQL for SQLite, SQL for PostgreSQL.
type Step = (i64, &'static str, &'static str, &'static str);

/// Every migration, in order.
const STEPS: [Step; 8] = [
    (
        1,
        "schema",
        include_str!("../../migrations/sqlite/0001_schema.sql"),
        include_str!("../../migrations/postgres/0001_schema.sql"),
    ),
    (
        2,
        "query indexes",
        include_str!("../../migrations/0002_query_indexes.sql"),
        include_str!("../../migrations/0002_query_indexes.sql"),
    ),
    (
        3,
        "run data",
        include_str!("../../migrations/sqlite/0003_run_data.sql"),
        include_str!("../../migrations/postgres/0003_run_data.sql"),
    ),
    (
        4,
        "instance identity",
        include_str!("../../migrations/sqlite/0004_instance_identity.sql"),
        include_str!("../../migrations/postgres/0004_instance_identity.sql"),
    ),
    (
        5,
        "import speed, run figures",
        include_str!("../../migrations/sqlite/0005_import_speed.sql"),
        include_str!("../../migrations/postgres/0005_import_speed.sql"),
    ),
    (
        6,
        "import indexes",
        include_str!("../../migrations/0006_import_indexes.sql"),
        include_str!("../../migrations/0006_import_indexes.sql"),
    ),
    (
        7,
        "interference cells",
        include_str!("../../migrations/0007_interference.sql"),
        include_str!("../../migrations/0007_interference.sql"),
    ),
    (
        8,
        "collecting",
        include_str!("../../migrations/sqlite/0008_collect.sql"),
        include_str!("../../migrations/postgres/0008_collect.sql"),
    ),
];

/// The schema version this mlb writes: the last migration's.
pub const SCHEMA_VERSION: i64 = STEPS[STEPS.len() - 1].0;

/// This mlb's version, as the store records it.
pub const MLB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The migrator of `backend`, with the migrations up to `version`.
fn migrator(backend: Backend, version: i64) -> Migrator {
    let migrations: Vec<Migration> = STEPS
        .iter()
        .filter(|step| step.0 <= version)
        .map(|&(number, description, sqlite, postgres)| {
            let sql = match backend {
                Backend::Sqlite => sqlite,
                Backend::Postgres => postgres,
            };
            Migration::new(number, Cow::Borrowed(description), MigrationType::Simple, Cow::Borrowed(sql), false)
        })
        .collect();
    Migrator { migrations: Cow::Owned(migrations), ignore_missing: false, locking: true, no_tx: false }
}

impl Store {
    /// Brings the store to `target` (at most [`SCHEMA_VERSION`]): refuses a
    /// newer store, backs an SQLite file up before migrating it.
    pub(super) fn migrate_to(&self, target: i64) -> Result<(), StoreError> {
        let _held = match self.location().file() {
            Some(file) => Some(self.migration_lock(file)?),
            None => None,
        };
        let found = self.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::Newer {
                location: self.location().clone(),
                found,
                found_by: self.written_by().unwrap_or_else(|| "unknown".into()),
                known: SCHEMA_VERSION,
                this_mlb: MLB_VERSION,
            });
        }
        if found >= target {
            return self.keep_figures_from(target);
        }
        if let (true, Some(file)) = (found > 0, self.location().file()) {
            self.back_up(&backup_path(file, found))?;
        }
        let migrated = self.block_on(migrator(self.backend(), target).run(self.pool()));
        if let Err(error) = migrated {
            // Another mlb may have applied them first (on PostgreSQL, the
            // migrator's own lock orders the two).
            if self.schema_version()? < target {
                let reason = super::error::scrub(self.location(), &error.to_string());
                return Err(StoreError::Migrate { location: self.location().clone(), reason });
            }
        }
        let info = "INSERT INTO store_info (key, value) VALUES ($1, $2) \
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value";
        for (key, value) in [("mlb_version", MLB_VERSION.to_string()), ("schema_version", target.to_string())] {
            let done = self.block_on(sqlx::query(info).bind(key).bind(value).execute(self.pool()));
            done.map_err(|e| StoreError::query(self.location(), "recording its version", &e))?;
        }
        self.keep_figures_from(target)
    }

    /// From schema 5 on (`target`), keeps the figures of the runs imported
    /// before ([`super::run_figures`]) unless they are kept: once, and
    /// again after a writer was stopped before it finished.
    fn keep_figures_from(&self, target: i64) -> Result<(), StoreError> {
        match target >= super::run_figures::SINCE && !self.run_figures_kept()? {
            true => self.keep_run_figures(),
            false => Ok(()),
        }
    }

    /// An exclusive `flock` on `FILE.migrate.lock` beside an SQLite store,
    /// held while its schema is read and migrated: SQLite's migrator takes no
    /// lock, and two mlb opening one new store at once (two imports) each ran
    /// the first migration, the second failing with "table already exists"
    /// while the first was still applying the later ones. The second now
    /// waits, then finds the schema current. The kernel releases the lock
    /// however the process ends.
    fn migration_lock(&self, file: &Path) -> Result<std::fs::File, StoreError> {
        let mut name = file.as_os_str().to_owned();
        name.push(".migrate.lock");
        let failed = |e: std::io::Error| StoreError::Migrate {
            location: self.location().clone(),
            reason: format!("cannot lock {}: {e}", Path::new(&name).display()),
        };
        let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&name).map_err(failed)?;
        lock.lock().map_err(failed)?;
        Ok(lock)
    }

    /// The schema version of the store: the last migration applied, 0 for a
    /// new store.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        let exists = match self.backend() {
            Backend::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
            Backend::Postgres => {
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() \
                 AND table_name = $1"
            }
        };
        let reading = |e: sqlx::Error| StoreError::query(self.location(), "reading its schema version", &e);
        let count: i64 = self
            .block_on(sqlx::query_scalar(exists).bind("_sqlx_migrations").fetch_one(self.pool()))
            .map_err(reading)?;
        if count == 0 {
            return Ok(0);
        }
        let last = "SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success";
        self.block_on(sqlx::query_scalar(last).fetch_one(self.pool())).map_err(reading)
    }

    /// The mlb version that last migrated the store, as it records it.
    fn written_by(&self) -> Option<String> {
        let query = sqlx::query_scalar("SELECT value FROM store_info WHERE key = $1").bind("mlb_version");
        self.block_on(query.fetch_optional(self.pool())).ok()?
    }

    /// Copies the SQLite store, whole and consistent, to `path`.
    fn back_up(&self, path: &Path) -> Result<(), StoreError> {
        let bad = |reason: String| StoreError::Backup { path: path.to_path_buf(), reason };
        if path.exists() {
            return Err(bad("a file of that name is in the way".into()));
        }
        let text = path.to_str().ok_or_else(|| bad("the path is not UTF-8".into()))?;
        let copied = self.block_on(sqlx::query("VACUUM INTO $1").bind(text).execute(self.pool()));
        copied.map(drop).map_err(|e| {
            // A partial copy is no backup.
            let _ = std::fs::remove_file(path);
            bad(e.to_string())
        })
    }
}

/// Where the store `file` at schema `version` is copied before migrating:
/// `FILE.schema-VERSION.bak` beside it.
pub fn backup_path(file: &Path, version: i64) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".schema-{version}.bak"));
    file.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Location;

    fn file_store(dir: &Path) -> (Location, PathBuf) {
        let file = dir.join("results.db");
        (Location::Sqlite(file.clone()), file)
    }

    #[test]
    fn a_new_store_gets_the_whole_schema_and_records_who_wrote_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&file_store(dir.path()).0).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert_eq!(store.written_by().as_deref(), Some(MLB_VERSION));
        // Opening again changes nothing.
        drop(store);
        assert_eq!(Store::open(&file_store(dir.path()).0).unwrap().schema_version().unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn an_older_store_is_backed_up_then_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let (location, file) = file_store(dir.path());
        let old = Store::connect(&location, crate::store::Access::ReadWrite).unwrap();
        old.migrate_to(1).unwrap();
        let insert = "INSERT INTO store_info (key, value) VALUES ('marker', 'kept')";
        old.block_on(sqlx::query(insert).execute(old.pool())).unwrap();
        drop(old);
        let store = Store::open(&location).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let backup = backup_path(&file, 1);
        assert_eq!(backup, dir.path().join("results.db.schema-1.bak"));
        let copy = Store::connect(&Location::Sqlite(backup), crate::store::Access::ReadWrite).unwrap();
        assert_eq!(copy.schema_version().unwrap(), 1, "the copy is of the store before");
        let marker = sqlx::query_scalar::<_, String>("SELECT value FROM store_info WHERE key = 'marker'");
        assert_eq!(copy.block_on(marker.fetch_one(copy.pool())).unwrap(), "kept");
    }

    #[test]
    fn version_4_keeps_the_instances_and_metrics_and_the_last_text_of_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let (location, _) = file_store(dir.path());
        let old = Store::connect(&location, crate::store::Access::ReadWrite).unwrap();
        old.migrate_to(3).unwrap();
        for sql in [
            "INSERT INTO systems (id, name, fingerprint, host, cpu, gpu_model, gpu_count, driver, runtime_versions) \
             VALUES (1, 'a', 'f', 'h', '', '', 0, '', '')",
            "INSERT INTO runs (id, system_id, folder, run_ids, imported_at, nodes) VALUES (1, 1, '/r', '', 'now', '')",
            "INSERT INTO instances (id, run_id, report_hash, entry, file, bench, config, outcome, gpu_energy, flagged) \
             VALUES (7, 1, 'h1', 0, 'x.json', 'vae', '{}', 'completed', 0, 0)",
            "INSERT INTO metrics (instance_id, name, value, unit) VALUES (7, 'train_item.avg', 1.5, 'items/s')",
            // An appended file imported twice by an older mlb: two texts of one file.
            "INSERT INTO report_texts (report_hash, run_id, file, body) VALUES ('h1', 1, 'x.json', X'01')",
            "INSERT INTO report_texts (report_hash, run_id, file, body) VALUES ('h2', 1, 'x.json', X'02')",
        ] {
            old.block_on(sqlx::query(sql).execute(old.pool())).unwrap();
        }
        drop(old);
        let store = Store::open(&location).unwrap();
        let one = |sql: &str| -> String { store.block_on(sqlx::query_scalar(sql).fetch_one(store.pool())).unwrap() };
        assert_eq!(one("SELECT bench || ' ' || CAST(id AS TEXT) FROM instances"), "vae 7");
        assert_eq!(one("SELECT name FROM metrics WHERE instance_id = 7"), "train_item.avg");
        assert_eq!(one("SELECT group_concat(report_hash) FROM report_texts"), "h2");
        // The metrics still go with their instance.
        store.block_on(sqlx::query("DELETE FROM instances WHERE id = 7").execute(store.pool())).unwrap();
        let left: i64 =
            store.block_on(sqlx::query_scalar("SELECT COUNT(*) FROM metrics").fetch_one(store.pool())).unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn version_5_keeps_the_figures_of_the_runs_imported_before_and_again_when_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let (location, _) = file_store(dir.path());
        let old = Store::connect(&location, crate::store::Access::ReadWrite).unwrap();
        old.migrate_to(4).unwrap();
        for sql in [
            "INSERT INTO systems (id, name, fingerprint, host, cpu, gpu_model, gpu_count, driver, runtime_versions) \
             VALUES (1, 'a', 'f', 'h', '', '', 0, '', '')",
            "INSERT INTO runs (id, system_id, folder, run_ids, imported_at, nodes) VALUES (1, 1, '/r', '', 'now', '')",
            "INSERT INTO instances (id, run_id, report_hash, entry, file, bench, config, outcome, items_per_s, \
             gpu_energy, flagged) VALUES (7, 1, 'h1', 0, 'x.json', 'vae', '{}', 'completed', 0.1, 0, 0)",
            "INSERT INTO instances (id, run_id, report_hash, entry, file, bench, config, outcome, fails_check, \
             gpu_energy, flagged) VALUES (8, 1, 'h2', 0, 'y.json', 'vae', '{}', 'completed', 'no_throughput', 0, 0)",
            "INSERT INTO metrics (instance_id, name, value, unit) VALUES (7, 'train_item.avg', 0.1, 'items/s')",
        ] {
            old.block_on(sqlx::query(sql).execute(old.pool())).unwrap();
        }
        drop(old);
        let kept = |store: &Store| -> Vec<(i64, Vec<u8>)> {
            let sql = "SELECT strict, speeds FROM run_figures WHERE run_id = 1 ORDER BY strict";
            store.block_on(sqlx::query_as(sql).fetch_all(store.pool())).unwrap()
        };
        let store = Store::open(&location).unwrap();
        let original = [0.1f64.to_le_bytes(), f64::NAN.to_le_bytes()].concat();
        assert_eq!(kept(&store), [(0, original.clone()), (1, 0.1f64.to_le_bytes().to_vec())]);
        // The metric lost its row table, not its instance.
        store.block_on(sqlx::query("DELETE FROM instances WHERE id = 7").execute(store.pool())).unwrap();
        let left: i64 =
            store.block_on(sqlx::query_scalar("SELECT COUNT(*) FROM metrics").fetch_one(store.pool())).unwrap();
        assert_eq!(left, 0);
        // A writer stopped after the schema and before the figures: the next one keeps them.
        for forget in ["DELETE FROM run_figures", "DELETE FROM store_info WHERE key = 'run_figures'"] {
            store.block_on(sqlx::query(forget).execute(store.pool())).unwrap();
        }
        drop(store);
        let refused = Store::open_read_only(&location).err().expect("a reader waits for the figures").to_string();
        assert!(refused.contains("version 4"), "{refused}");
        let store = Store::open(&location).unwrap();
        // Instance 8 alone is left: the original's rule counts it, without a throughput.
        assert_eq!(kept(&store), [(0, f64::NAN.to_le_bytes().to_vec())]);
    }

    #[test]
    fn a_newer_store_is_refused_naming_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        let (location, _) = file_store(dir.path());
        let store = Store::open(&location).unwrap();
        let future = "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
                      VALUES (99, 'future', TRUE, X'00', 0)";
        store.block_on(sqlx::query(future).execute(store.pool())).unwrap();
        let by = "UPDATE store_info SET value = '9.9.9' WHERE key = 'mlb_version'";
        store.block_on(sqlx::query(by).execute(store.pool())).unwrap();
        drop(store);
        let error = Store::open(&location).err().expect("refused").to_string();
        assert!(error.contains("schema version 99") && error.contains("mlb 9.9.9"), "{error}");
        assert!(error.contains(MLB_VERSION) && error.contains(&format!("up to {SCHEMA_VERSION}")), "{error}");
    }
}
