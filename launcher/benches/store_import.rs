//! How fast `mlb db import` stores report files, into SQLite and into
//! PostgreSQL: for each size (default 100,000 files; or the sizes given),
//! it writes that many reports in the original suite's format (16 benches
//! x 8 GPUs a run, a folder a run: `report_gen::write_campaign`), then, on
//! each backend, runs the real `mlb db import` into a new store and again
//! on the same folder (nothing new). Medians of 3 runs, each into a new
//! store: wall time, the command's CPU time (user and system, all threads:
//! reading, hashing, parsing and SQLite itself; not the PostgreSQL
//! server's), the steadier figure on a shared machine, and its peak
//! resident memory.
//!
//! PostgreSQL is the test server of scripts/setup-postgres.sh, or the one
//! `MLB_TEST_POSTGRES` names (a role that may make databases); left out
//! when none answers. With `STORE_IMPORT_DIR=DIR` the reports are written
//! there once and kept (for a profiler), and a folder already there is
//! imported as it is.
//!
//! `cargo bench -p mlb --bench store_import [-- SIZE...]`

#[path = "../tests/it/report_gen/mod.rs"]
mod report_gen;

#[path = "common/rusage.rs"]
mod rusage;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Imports timed per size and backend.
const RUNS: usize = 3;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100_000] } else { sizes };
    let server = std::env::var("MLB_TEST_POSTGRES").unwrap_or_else(|_| "postgres://mlb:mlb@127.0.0.1:55432/mlb".into());
    let postgres = admin(&server, "SELECT 1").is_ok();
    println!(
        "store_import: {} CPUs; PostgreSQL: {}",
        std::thread::available_parallelism().map_or(1, usize::from),
        if postgres { "the test server" } else { "left out (no server answers)" }
    );
    for files in sizes {
        let temporary = tempfile::tempdir().expect("temporary folder");
        let dir = match std::env::var_os("STORE_IMPORT_DIR") {
            Some(kept) => Path::new(&kept).join(files.to_string()),
            None => temporary.path().join("reports"),
        };
        if !dir.exists() {
            let bytes = report_gen::write_campaign(&dir, files);
            println!("{files} report files in the original's format, {:.1} MB:", bytes as f64 / 1e6);
        } else {
            println!("{files} report files in the original's format, kept in {}:", dir.display());
        }
        let mut times = Vec::new();
        for run in 0..RUNS {
            let db = tempfile::tempdir().expect("temporary folder");
            times.push(measure(&format!("sqlite:{}", db.path().join("results.db").display()), &dir, files, run));
        }
        print_medians("SQLite", &mut times);
        if postgres {
            let mut times = Vec::new();
            let name = format!("mlb_bench_{}", std::process::id());
            let (base, _) = server.rsplit_once('/').expect("the server URL names a database");
            for run in 0..RUNS {
                admin(&server, &format!("DROP DATABASE IF EXISTS {name}")).expect("drop the bench database");
                admin(&server, &format!("CREATE DATABASE {name}")).expect("make the bench database");
                times.push(measure(&format!("{base}/{name}"), &dir, files, run));
            }
            admin(&server, &format!("DROP DATABASE IF EXISTS {name}")).expect("drop the bench database");
            print_medians("PostgreSQL", &mut times);
        }
    }
}

/// Wall and CPU seconds and peak resident megabytes of one import.
type Cost = (f64, f64, f64);

/// What importing `dir` (`files` reports) into a new store at the URL `location`
/// cost, then importing it again.
fn measure(location: &str, dir: &Path, files: usize, run: usize) -> (Cost, Cost) {
    let (first, said) = import(location, dir);
    assert!(said.contains(&format!(": {files} files, {files} reports imported")), "every report stored: {said}");
    let (again, said) = import(location, dir);
    assert!(said.contains(&format!("{files} files already stored")), "nothing new: {said}");
    eprintln!("  run {}: import {}, again {}", run + 1, shown(first), shown(again));
    (first, again)
}

/// `mlb db import` of `dir` into the store at the URL `location`: what it cost and its summary line.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std does not offer
fn import(location: &str, dir: &Path) -> (Cost, String) {
    let t0 = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["db", "import", "--db", location])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mlb db import");
    let pid = child.id();
    let stderr = std::thread::spawn(move || std::io::read_to_string(child.stderr.unwrap()).unwrap_or_default());
    let (status, usage) = rusage::wait_with_usage(pid);
    let wall = t0.elapsed().as_secs_f64();
    let said = stderr.join().expect("its standard error");
    assert_eq!(status, 0, "mlb db import failed: {said}");
    let seconds = |t: nix::libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    ((wall, cpu, usage.ru_maxrss as f64 / 1024.0), said.lines().last().unwrap_or_default().to_string())
}

fn shown((wall, cpu, peak): Cost) -> String {
    format!("{wall:.2} s ({cpu:.2} s CPU, peak {peak:.0} MB)")
}

/// Prints the medians of `times` (import, import again).
fn print_medians(backend: &str, times: &mut [(Cost, Cost)]) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let of = |get: fn(&(Cost, Cost)) -> f64| median(times.iter().map(get).collect());
    let import = (of(|t| t.0 .0), of(|t| t.0 .1), of(|t| t.0 .2));
    let again = (of(|t| t.1 .0), of(|t| t.1 .1), of(|t| t.1 .2));
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
