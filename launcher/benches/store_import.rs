//! How fast `mlb db import` stores report files, into SQLite and into
//! PostgreSQL: for each size (default 100,000 files; or the sizes given),
//! it writes that many reports in the original suite's format (16 benches
//! x 8 GPUs a run, a folder a run: `report_gen::write_campaign`), then, on
//! each backend, imports them into a new store and imports the same folder
//! again (nothing new). Medians of 3 runs, each into a new store: wall
//! time, and the CPU time of this process (user and system, all threads:
//! reading, hashing, parsing and SQLite itself; not the PostgreSQL server's),
//! the steadier figure on a shared machine.
//!
//! PostgreSQL is the test server of scripts/setup-postgres.sh, or the one
//! `MLB_TEST_POSTGRES` names (a role that may make databases); left out
//! when none answers.
//!
//! `cargo bench -p mlb --bench store_import [-- SIZE...]`

#[path = "../tests/it/report_gen/mod.rs"]
mod report_gen;

use mlb::store::import::{import, Labels};
use mlb::store::{Location, Store};
use std::path::Path;
use std::time::Instant;

/// Imports timed per size and backend.
const RUNS: usize = 3;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100_000] } else { sizes };
    let server = std::env::var("MLB_TEST_POSTGRES").unwrap_or_else(|_| "postgres://mlb:mlb@127.0.0.1:55432/mlb".into());
    let postgres = admin(&server, "SELECT 1").is_ok();
    println!(
        "store_import: {} threads; PostgreSQL: {}",
        rayon::current_num_threads(),
        if postgres { "the test server" } else { "left out (no server answers)" }
    );
    for files in sizes {
        let dir = tempfile::tempdir().expect("temporary folder");
        let bytes = report_gen::write_campaign(dir.path(), files);
        println!("{files} report files in the original's format, {:.1} MB:", bytes as f64 / 1e6);
        let mut times = Vec::new();
        for run in 0..RUNS {
            let db = tempfile::tempdir().expect("temporary folder");
            times.push(measure(&Location::Sqlite(db.path().join("results.db")), dir.path(), files, run));
        }
        print_medians("SQLite", &mut times);
        if postgres {
            let mut times = Vec::new();
            let name = format!("mlb_bench_{}", std::process::id());
            let (base, _) = server.rsplit_once('/').expect("the server URL names a database");
            for run in 0..RUNS {
                admin(&server, &format!("DROP DATABASE IF EXISTS {name}")).expect("drop the bench database");
                admin(&server, &format!("CREATE DATABASE {name}")).expect("make the bench database");
                let location = Location::parse(&format!("{base}/{name}")).unwrap();
                times.push(measure(&location, dir.path(), files, run));
            }
            admin(&server, &format!("DROP DATABASE IF EXISTS {name}")).expect("drop the bench database");
            print_medians("PostgreSQL", &mut times);
        }
    }
}

/// Wall and CPU seconds of one import.
type Seconds = (f64, f64);

/// Seconds to import `dir` (`files` reports) into a new store at
/// `location`, then to import it again.
fn measure(location: &Location, dir: &Path, files: usize, run: usize) -> (Seconds, Seconds) {
    let store = Store::open(location).expect("open the store");
    let folders = [dir.to_path_buf()];
    let (first, import_s) = timed(|| import(&store, &folders, &Labels::default(), &|_| ()).expect("import"));
    assert_eq!(first.instances, files, "every report stored");
    let (again, again_s) = timed(|| import(&store, &folders, &Labels::default(), &|_| ()).expect("import again"));
    assert_eq!((again.instances, again.skipped_files), (0, files), "nothing new");
    eprintln!("  run {}: import {}, again {}", run + 1, shown(import_s), shown(again_s));
    (import_s, again_s)
}

/// What `work` gave, and the wall and CPU seconds it took.
fn timed<T>(work: impl FnOnce() -> T) -> (T, Seconds) {
    let (t0, cpu0) = (Instant::now(), cpu_seconds());
    let out = work();
    (out, (t0.elapsed().as_secs_f64(), cpu_seconds() - cpu0))
}

/// CPU seconds of this process so far (user and system, every thread).
fn cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    seconds(usage.user_time()) + seconds(usage.system_time())
}

fn shown((wall, cpu): Seconds) -> String {
    format!("{wall:.2} s ({cpu:.2} s CPU)")
}

/// Prints the medians of `times` (import, import again).
fn print_medians(backend: &str, times: &mut [(Seconds, Seconds)]) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let of = |get: fn(&(Seconds, Seconds)) -> f64| median(times.iter().map(get).collect());
    let import = (of(|t| t.0 .0), of(|t| t.0 .1));
    let again = (of(|t| t.1 .0), of(|t| t.1 .1));
    println!("  {backend:<10} import {}, again (nothing new) {} (medians of {RUNS})", shown(import), shown(again));
}

/// Runs `sql` on the server's own database.
fn admin(server: &str, sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let mut conn = sqlx::PgConnection::connect(server).await?;
        sqlx::Executor::execute(&mut conn, sql).await.map(drop)
    })
}
