//! The results store (`mlb db`): every run imported into one database,
//! embedded SQLite by default, a site's PostgreSQL server when many hosts
//! and people share one. docs/results.md describes the schema.
//!
//! - [`location`]: where a store is (`--db URL`, `MLB_DB`, the default file),
//!   and its password kept out of every message;
//! - [`migrate`]: the schema's versions, one migration folder per backend;
//! - [`name`]: the rule for the names the store keeps (a system's);
//! - [`import`]: `mlb db import`, reports into the store;
//! - [`after_run`]: `mlb --jobs FILE --db`, the run imported when it ends;
//! - [`system_edit`]: `mlb db rename-system` and `remove-system`;
//! - [`query`]: runs, systems, comparisons, history, regressions' past runs and exports;
//! - [`run_figures`]: the figures each run keeps for comparisons and histories;
//! - [`error`]: what can go wrong, with the fix.
//!
//! One query layer serves both backends: sqlx's `Any` driver, with `$N`
//! placeholders (which both read) and bound parameters only: bench,
//! system and tag names are data, never SQL. Times are stored as RFC 3339
//! text in UTC, flags as integers 0 and 1, so that every column reads back
//! as the same type from either backend.

pub mod after_run;
pub mod error;
pub mod import;
pub mod location;
pub mod migrate;
pub mod name;
pub mod query;
pub mod run_figures;
pub mod system_edit;

pub use error::StoreError;
pub use location::Location;
pub use migrate::{MLB_VERSION, SCHEMA_VERSION};

use sqlx::any::{AnyArguments, AnyPoolOptions};
use sqlx::query::Query;
use sqlx::Executor;
use sqlx::{Any, AnyPool};
use std::future::Future;
use std::time::Duration;

/// Which database a store is kept in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl Backend {
    /// The placeholders of `rows` rows of `columns` values each, for a
    /// multi-row `VALUES` list (or, one row, an `IN` list): `($1, $2), ($3,
    /// $4)` on PostgreSQL, `(?, ?), (?, ?)` on SQLite. Use these for long
    /// lists: sqlx's SQLite driver looks each `$N` up by name, which takes
    /// time in the square of the parameters.
    pub fn placeholders(self, rows: usize, columns: usize) -> String {
        let mut sql = String::with_capacity(rows * columns * 6);
        for r in 0..rows {
            sql.push_str(if r == 0 { "(" } else { ", (" });
            for c in 0..columns {
                if c > 0 {
                    sql.push_str(", ");
                }
                match self {
                    Backend::Sqlite => sql.push('?'),
                    Backend::Postgres => {
                        sql.push('$');
                        sql.push_str(&(r * columns + c + 1).to_string());
                    }
                }
            }
            sql.push(')');
        }
        sql
    }
}

/// An open store at the current schema version. Its methods block: they
/// run on the store's own single-threaded async runtime, or on the runtime
/// of the program that opened it ([`Store::open_read_only_on`]: `mlb
/// serve`'s, one pool of threads for the connections and the server); so
/// they must not be called from inside a task of a runtime.
pub struct Store {
    location: Location,
    backend: Backend,
    pool: AnyPool,
    runtime: Runtime,
}

/// Where a store's queries run.
enum Runtime {
    /// Its own single-threaded runtime (the `mlb db` commands).
    Own(tokio::runtime::Runtime),
    /// The runtime of the program that opened it.
    Shared(tokio::runtime::Handle),
}

impl Runtime {
    fn block_on<F: Future>(&self, work: F) -> F::Output {
        match self {
            Runtime::Own(runtime) => runtime.block_on(work),
            Runtime::Shared(handle) => handle.block_on(work),
        }
    }
}

/// Whether a store is opened to write or only to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Imports and queries: made when missing, migrated.
    ReadWrite,
    /// `mlb serve`: nothing written, nothing made.
    ReadOnly,
}

/// How long a statement waits for another writer of an SQLite store
/// (another import) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long opening a store (or waiting for a connection) may take: a
/// server that does not answer is an error, not a hang.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections to a store: a few, since SQLite writes one at a time.
const CONNECTIONS: u32 = 4;

impl Store {
    /// Opens the store at `location` to write into it (`mlb db import`),
    /// making it when it does not exist (an SQLite file: its folder too),
    /// and migrates it to [`SCHEMA_VERSION`] (see [`migrate`]).
    pub fn open(location: &Location) -> Result<Store, StoreError> {
        let store = Store::connect(location, Access::ReadWrite)?;
        store.migrate_to(SCHEMA_VERSION)?;
        Ok(store)
    }

    /// Opens the store at `location` for a query (`mlb db runs`, ...):
    /// only a store that exists (a mistyped `--db` once made an empty one),
    /// migrated to [`SCHEMA_VERSION`] when older.
    pub fn open_existing(location: &Location) -> Result<Store, StoreError> {
        if let Some(path) = location.file() {
            if !path.exists() {
                return Err(StoreError::Missing { path: path.to_path_buf() });
            }
        }
        let store = Store::connect(location, Access::ReadWrite)?;
        if store.schema_version()? == 0 {
            return Err(StoreError::NotCurrent { location: location.clone(), found: 0, current: SCHEMA_VERSION });
        }
        store.migrate_to(SCHEMA_VERSION)?;
        Ok(store)
    }

    /// Opens the store at `location` for reading only (`mlb serve`): an
    /// SQLite file opened `mode=ro` (readers still see what an import
    /// commits meanwhile), a PostgreSQL session whose transactions are
    /// read-only. Refuses a store that does not exist or is not at
    /// [`SCHEMA_VERSION`] (an older one must be migrated by a writer first).
    pub fn open_read_only(location: &Location) -> Result<Store, StoreError> {
        Store::open_read_only_in(location, None)
    }

    /// As [`Store::open_read_only`], its queries run on `runtime` (a
    /// multi-threaded one: a query blocks the thread that asks it, and the
    /// connections' work runs on the runtime's threads). Called outside
    /// the runtime's tasks: from its `spawn_blocking` threads or the
    /// program's own.
    pub fn open_read_only_on(location: &Location, runtime: tokio::runtime::Handle) -> Result<Store, StoreError> {
        Store::open_read_only_in(location, Some(runtime))
    }

    /// As [`Store::open_existing`], its queries run on `runtime` (as
    /// [`Store::open_read_only_on`]): `mlb serve --accept-push`, whose one
    /// store both answers the pages and takes the pushes. One store, not a
    /// reader and a writer: opening an SQLite file a second time in a
    /// process (and closing it) drops the locks its first connections hold.
    pub fn open_existing_on(location: &Location, runtime: tokio::runtime::Handle) -> Result<Store, StoreError> {
        if let Some(path) = location.file() {
            if !path.exists() {
                return Err(StoreError::Missing { path: path.to_path_buf() });
            }
        }
        let store = Store::connect_in(location, Access::ReadWrite, Some(runtime))?;
        if store.schema_version()? == 0 {
            return Err(StoreError::NotCurrent { location: location.clone(), found: 0, current: SCHEMA_VERSION });
        }
        store.migrate_to(SCHEMA_VERSION)?;
        Ok(store)
    }

    fn open_read_only_in(location: &Location, runtime: Option<tokio::runtime::Handle>) -> Result<Store, StoreError> {
        let store = Store::connect_in(location, Access::ReadOnly, runtime)?;
        let found = store.schema_version()?;
        if found != SCHEMA_VERSION {
            return Err(StoreError::NotCurrent { location: location.clone(), found, current: SCHEMA_VERSION });
        }
        if !store.run_figures_kept()? {
            // Migrated, but a writer has yet to keep its runs' figures.
            return Err(StoreError::NotCurrent {
                location: location.clone(),
                found: run_figures::SINCE - 1,
                current: SCHEMA_VERSION,
            });
        }
        Ok(store)
    }

    /// Connects to the store at `location`, as it is.
    fn connect(location: &Location, access: Access) -> Result<Store, StoreError> {
        Store::connect_in(location, access, None)
    }

    /// Connects to the store at `location`, its queries run on `runtime`
    /// (`None`: its own).
    fn connect_in(
        location: &Location,
        access: Access,
        runtime: Option<tokio::runtime::Handle>,
    ) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if let Location::Sqlite(path) = location {
            check_file(path)?;
        }
        let backend = match location {
            Location::Sqlite(_) if access == Access::ReadOnly => Backend::Sqlite,
            Location::Sqlite(path) => {
                if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(folder)
                        .map_err(|source| StoreError::Folder { path: folder.to_path_buf(), source })?;
                }
                Backend::Sqlite
            }
            Location::Postgres(_) => Backend::Postgres,
        };
        let runtime = match runtime {
            Some(handle) => Runtime::Shared(handle),
            None => Runtime::Own(
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| StoreError::Connect { location: location.clone(), reason: e.to_string() })?,
            ),
        };
        let options = AnyPoolOptions::new()
            .max_connections(CONNECTIONS)
            .acquire_timeout(CONNECT_TIMEOUT)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    match (backend, access) {
                        // No journal mode set (that writes): a store is
                        // in WAL mode from its first writer on.
                        (Backend::Sqlite, Access::ReadOnly) => {
                            let pragmas = format!(
                                "PRAGMA query_only = ON; PRAGMA busy_timeout = {}; PRAGMA cache_size = -65536;",
                                BUSY_TIMEOUT.as_millis()
                            );
                            conn.execute(pragmas.as_str()).await?;
                            return Ok(());
                        }
                        (Backend::Postgres, Access::ReadOnly) => {
                            conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY").await?;
                            return Ok(());
                        }
                        _ => {}
                    }
                    if backend == Backend::Sqlite {
                        // WAL: readers do not wait for an import; NORMAL: a
                        // commit survives a killed process (not a power cut
                        // before the next checkpoint, which costs no consistency);
                        // a page cache of 64 MiB, for the indexes an import
                        // adds to stay in memory; the log folded back into
                        // the file every 40 MiB, not 4 (an import's
                        // transaction is tens of MiB: one fold each, not ten).
                        let pragmas = format!(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
                             PRAGMA busy_timeout = {}; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; \
                             PRAGMA wal_autocheckpoint = 10000;",
                            BUSY_TIMEOUT.as_millis()
                        );
                        conn.execute(pragmas.as_str()).await?;
                    }
                    Ok(())
                })
            });
        let pool = runtime
            .block_on(options.connect(&location.connect_url(access)))
            .map_err(|e| StoreError::connect(location, &e))?;
        Ok(Store { location: location.clone(), backend, pool, runtime })
    }

    /// Where the store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Which database it is kept in.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The connections, for queries run through [`Store::block_on`].
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Runs `work` (queries on [`Store::pool`]) to its end.
    pub fn block_on<F: Future>(&self, work: F) -> F::Output {
        self.runtime.block_on(work)
    }
}

/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses, before SQLite opens it, a store path that is neither absent
/// nor a regular file (`/dev/null`: SQLite made `/dev/null-journal`; a FIFO
/// would block) and a file that is not an SQLite database (a text file
/// once waited 10 s, then spoke of a pool timeout). An empty file is a new
/// store.
fn check_file(path: &std::path::Path) -> Result<(), StoreError> {
    use std::io::Read;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(StoreError::File { path: path.to_path_buf(), source }),
    };
    if !meta.is_file() {
        return Err(StoreError::NotAFile { path: path.to_path_buf() });
    }
    if meta.len() == 0 {
        return Ok(());
    }
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    let file = std::fs::File::open(path).map_err(|source| StoreError::File { path: path.to_path_buf(), source })?;
    file.take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut head)
        .map_err(|source| StoreError::File { path: path.to_path_buf(), source })?;
    match head == SQLITE_HEADER {
        true => Ok(()),
        false => Err(StoreError::NotAStore { path: path.to_path_buf() }),
    }
}

/// Binds `value`, a number or NULL, to `query`. Bind every optional float
/// through this: sqlx 0.8's `Any` driver declares a NULL `f64` to
/// PostgreSQL as `real` (its `real` and `double precision` are swapped for
/// NULLs), so that a statement first run with a NULL there then refuses a
/// number ("incorrect binary data format"). A NULL `f32` is declared as
/// `double precision`, as the numbers are.
pub fn bind_f64<'q>(query: Query<'q, Any, AnyArguments<'q>>, value: Option<f64>) -> Query<'q, Any, AnyArguments<'q>> {
    match value {
        Some(v) => query.bind(v),
        None => query.bind(None::<f32>),
    }
}

/// Binds `value`, a text or NULL, to `query`, each NUL character in it
/// replaced by U+FFFD. Bind every text the import writes through this:
/// PostgreSQL refuses a text holding NUL (SQLite keeps it), so one NUL in
/// a crashed job's log or a name once kept its whole run out of a
/// PostgreSQL store; both backends now store the same text.
pub fn bind_text<'q>(
    query: Query<'q, Any, AnyArguments<'q>>,
    value: Option<&'q str>,
) -> Query<'q, Any, AnyArguments<'q>> {
    match value {
        Some(text) if text.contains('\0') => query.bind(text.replace('\0', "\u{FFFD}")),
        value => query.bind(value),
    }
}

impl Drop for Store {
    /// Closes the connections, so that an SQLite store's write-ahead log is
    /// folded back into the file. Dropped inside a task of the runtime it
    /// shares, it cannot wait: its connections close as they are dropped.
    fn drop(&mut self) {
        if matches!(self.runtime, Runtime::Own(_)) || tokio::runtime::Handle::try_current().is_err() {
            self.runtime.block_on(self.pool.close());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_every_value_on_postgres_only() {
        assert_eq!(Backend::Postgres.placeholders(2, 3), "($1, $2, $3), ($4, $5, $6)");
        assert_eq!(Backend::Sqlite.placeholders(2, 2), "(?, ?), (?, ?)");
        assert_eq!(Backend::Postgres.placeholders(1, 1), "($1)");
    }
}
