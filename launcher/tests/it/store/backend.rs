//! A store to test on, of either backend, and [`on_both!`], which runs one
//! test body on each: `AREA::on_sqlite::NAME` (the unit tier) and
//! `AREA::on_postgres::NAME` (the postgres tier, `.config/nextest.toml`).

use mlb::store::{Location, Store};
use sqlx::Row;
use std::path::Path;

/// The server of the postgres tier: `MLB_TEST_POSTGRES`, else the one
/// scripts/setup-postgres.sh starts.
pub fn server_url() -> String {
    std::env::var("MLB_TEST_POSTGRES").unwrap_or_else(|_| "postgres://mlb:mlb@127.0.0.1:55432/mlb".into())
}

/// An empty store of its own, removed when dropped: an SQLite file in a
/// temporary folder, or a database of its own on the test server.
pub struct TestStore {
    /// Its URL, for `--db`.
    pub url: String,
    /// The temporary folder of an SQLite store.
    _dir: Option<tempfile::TempDir>,
    /// The database made on the server, dropped with the store.
    database: Option<String>,
}

/// Which backend a test body runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

impl TestStore {
    /// A new store of `kind`.
    pub fn new(kind: Kind) -> TestStore {
        match kind {
            Kind::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let url = format!("sqlite:{}", dir.path().join("results.db").display());
                TestStore { url, _dir: Some(dir), database: None }
            }
            Kind::Postgres => {
                // A name of letters and digits only: an identifier cannot be a bound parameter.
                let name = format!("t{}_{}", std::process::id(), rand_suffix());
                admin(&format!("CREATE DATABASE {name}"));
                let server = server_url();
                let (base, _) = server.rsplit_once('/').expect("the server URL names a database");
                TestStore { url: format!("{base}/{name}"), _dir: None, database: Some(name) }
            }
        }
    }

    /// The store, opened (and migrated).
    pub fn open(&self) -> Store {
        Store::open(&Location::parse(&self.url).unwrap()).unwrap()
    }

    /// The first column of the one row `sql` gives, as an integer.
    pub fn count(&self, sql: &str) -> i64 {
        let store = self.open();
        store.block_on(sqlx::query(sql).fetch_one(store.pool())).unwrap().get(0)
    }

    /// The rows of `sql` (every column text), with `binds` bound.
    pub fn texts(&self, sql: &str, binds: &[&str]) -> Vec<Vec<Option<String>>> {
        let store = self.open();
        let query = binds.iter().fold(sqlx::query(sql), |q, b| q.bind(*b));
        let rows = store.block_on(query.fetch_all(store.pool())).unwrap();
        rows.iter().map(|r| (0..r.len()).map(|i| r.get::<Option<String>, _>(i)).collect()).collect()
    }
}

impl Drop for TestStore {
    /// Drops the database. `WITH (FORCE)` ends the test's own connections,
    /// but refuses while a process of another role (an autovacuum worker
    /// after a migration rewrote a table) is on it: tried again for 10 s,
    /// then left to the server's removal at the end of the tier, with a
    /// warning.
    fn drop(&mut self) {
        let Some(name) = &self.database else { return };
        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while let Err(e) = try_admin(&drop) {
            if std::time::Instant::now() > deadline {
                eprintln!("warning: test database {name} left on the test server: {e}");
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}

/// The URL of `store` (on the test server) as the role `mlb_reader`, which
/// may only read (scripts/setup-postgres.sh).
pub fn read_only_role(store: &TestStore) -> String {
    let (scheme, rest) = store.url.split_once("://").expect("a server URL");
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://mlb_reader:mlb_reader@{host}")
}

/// Runs `sql` on the test server's own database.
fn admin(sql: &str) {
    try_admin(sql).unwrap();
}

/// Runs `sql` on the test server's own database; the server's error, if any.
fn try_admin(sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut conn = sqlx::PgConnection::connect(&server_url())
            .await
            .expect("the postgres tier needs the test server: scripts/setup-postgres.sh");
        sqlx::Executor::execute(&mut conn, sql).await.map(drop)
    })
}

/// A few random letters, for names of databases.
fn rand_suffix() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{nanos:x}{count}")
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs `mlb db import` with `args`, into `store`; returns status, stdout, stderr.
pub fn import(store: &TestStore, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(crate::common::mlb())
        .args(["db", "import", "--db", &store.url])
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    (out.status.code(), stdout, stderr)
}

/// Writes `folders` run folders of `files` reports each (one bench a file,
/// one device a file) under `dir`, as mlb's worker writes them; returns the
/// report files written.
pub fn write_runs(dir: &Path, folders: usize, files: usize) -> usize {
    for f in 0..folders {
        let folder = dir.join(format!("run{f:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        for k in 0..files {
            let report = serde_json::json!({
                "name": format!("bench{}", k % 8),
                "suite": "baselines",
                "run_id": f,
                "vcd": (k % 4).to_string(),
                "completed": true,
                "hostname": "host-a",
                "gpu": "Model X",
                "start_time": format!("2026-01-{:02} 10:00:{:02}.000000", 1 + f % 28, k % 60),
                "batch_size": 32 + k % 3,
                "train": {"avg": 0.5, "min": 0.4, "max": 0.6, "sd": 0.01, "count": 20, "unit": "s"},
                "train_item": {"avg": 100.0 + (f * files + k) as f64, "min": 90.0, "max": 110.0, "unit": "items/sec"},
                "batch_loss": [2.0, 1.5, 1.0],
            });
            let name = format!("baselines.bench{}.R{f}.D{}.20260101-100000-{k:06}.json", k % 8, k % 4);
            std::fs::write(folder.join(name), report.to_string()).unwrap();
        }
    }
    folders * files
}

/// Defines, for each body `fn NAME(kind: Kind)` of the module, the tests
/// `on_sqlite::NAME` and `on_postgres::NAME`.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test] fn $name() { super::$name($crate::store::backend::Kind::Sqlite) })*
        }
        mod on_postgres {
            $(#[test] fn $name() { super::$name($crate::store::backend::Kind::Postgres) })*
        }
    };
}
pub(crate) use on_both;
