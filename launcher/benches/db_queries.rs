//! How fast the store answers: `mlb db compare` of 5 systems and `mlb db
//! history` of one, on an SQLite store of 1,000 runs (200 per system, 100
//! reports each: 20 benches on 5 devices) holding about a million metric
//! rows, filled by `mlb db import`. Each query is timed in this process
//! (the store open, as `mlb db` holds it) and as the whole command (the
//! real binary: start, open, query, print, with its peak resident memory).
//! Medians of [`RUNS`] runs, in milliseconds, of the wall time and of the
//! CPU time the query costs (on a machine shared with other work the wall
//! time grows, the CPU time does not); the bench fails when the query's CPU
//! median is over [`LIMIT_MS`]. Last, `mlb db export --to csv` of the whole
//! store (every metric row): its time, bytes and peak memory, which must not
//! grow with the store (the rows are streamed).
//!
//! Run with `cargo bench -p mlb --bench db_queries`. With `DB_QUERIES_STORE=FILE`
//! the store is kept in `FILE`, and a store already there is timed as it is.

use clap::Parser;
use mlb::cli::{Cli, Command};
use mlb::commands::db::DbCommand;
use mlb::store::{Location, Store};
use nix::sys::resource::{getrusage, UsageWho};
use runs_store::{fill, median, BENCHES, RUNS_PER_SYSTEM};
use std::time::Instant;

mod runs_store;
#[path = "common/rusage.rs"]
mod rusage;

const RUNS: usize = 11;
/// Most a query may take (its median), in milliseconds.
const LIMIT_MS: f64 = 100.0;

/// The `mlb db` query `args`, parsed.
fn db_args(args: &[&str]) -> DbCommand {
    let cli = Cli::try_parse_from([&["mlb", "db"], args].concat()).unwrap();
    match cli.command {
        Some(Command::Db { command }) => command,
        _ => unreachable!("mlb db"),
    }
}

/// CPU time (user and system) this process has used, in ms: SQLite runs
/// on sqlx's worker thread, so the whole process counts.
fn cpu_ms() -> f64 {
    let usage = getrusage(UsageWho::RUSAGE_SELF).unwrap();
    let ms = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1e3 + t.tv_usec() as f64 / 1e3;
    ms(usage.user_time()) + ms(usage.system_time())
}

/// Medians of the wall and the CPU ms of `work`, run [`RUNS`] times.
fn time(mut work: impl FnMut()) -> (f64, f64) {
    let (wall, cpu): (Vec<f64>, Vec<f64>) = (0..RUNS)
        .map(|_| {
            let (t0, c0) = (Instant::now(), cpu_ms());
            work();
            (t0.elapsed().as_secs_f64() * 1e3, cpu_ms() - c0)
        })
        .unzip();
    (median(wall), median(cpu))
}

/// The whole command `mlb ARGS`, its output thrown away: its wall ms,
/// CPU ms and peak resident MB.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std does not offer
fn command(mlb: &str, args: &[&str]) -> (f64, f64, f64) {
    let t0 = Instant::now();
    let child = std::process::Command::new(mlb)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (status, usage) = rusage::wait_with_usage(child.id());
    let wall = t0.elapsed().as_secs_f64() * 1e3;
    assert_eq!(status, 0, "mlb {args:?} failed");
    let ms = |t: nix::libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    (wall, ms(usage.ru_utime) + ms(usage.ru_stime), usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    let mlb = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let (url, seconds) = fill(mlb, dir.path(), std::env::var_os("DB_QUERIES_STORE").map(Into::into));
    let store = Store::open(&Location::parse(&url).unwrap()).unwrap();
    let count = |table: &str| -> i64 {
        use sqlx::Row;
        let sql = format!("SELECT COUNT(*) FROM {table}");
        store.block_on(sqlx::query(&sql).fetch_one(store.pool())).unwrap().get(0)
    };
    println!(
        "store: {} runs, {} instances, {} metric rows (written in {:.1} s)",
        count("runs"),
        count("instances"),
        count("metrics"),
        seconds
    );
    let queries: [(&str, Vec<&str>); 3] = [
        ("compare of 5 systems", vec!["compare", "--db", &url, "--systems", "sysA,sysB,sysC,sysD,sysE"]),
        ("history of 1 system", vec!["history", "--db", &url, "--system", "sysC"]),
        ("history of 1 bench", vec!["history", "--db", &url, "--system", "sysC", "--bench", "bench07"]),
    ];
    let mut ok = true;
    for (what, args) in &queries {
        let parsed = db_args(args);
        let (query_ms, query_cpu) = time(|| match &parsed {
            DbCommand::Compare(c) => {
                let m = mlb::store::query::compare::compare(&store, &c.options()).unwrap();
                assert_eq!(m.rows.len(), BENCHES);
            }
            DbCommand::History(h) => {
                let found = mlb::store::query::history::fetch(&store, &h.options()).unwrap();
                assert_eq!(found.series[0].points.len(), RUNS_PER_SYSTEM);
            }
            _ => unreachable!(),
        });
        let db: Vec<&str> = std::iter::once("db").chain(args.iter().copied()).collect();
        let runs: Vec<(f64, f64, f64)> = (0..RUNS).map(|_| command(mlb, &db)).collect();
        let command_ms = median(runs.iter().map(|r| r.0).collect());
        let peak = median(runs.iter().map(|r| r.2).collect());
        let fine = query_cpu <= LIMIT_MS;
        ok &= fine;
        println!(
            "{what:<22} query {query_ms:>6.1} ms, CPU {query_cpu:>6.1} ms (limit {LIMIT_MS} ms) {}; whole command {command_ms:>6.1} ms, peak {peak:.0} MB",
            if fine { "ok" } else { "TOO SLOW" }
        );
    }
    let (wall, cpu, peak) = command(mlb, &["db", "export", "--db", &url, "--to", "csv"]);
    println!("export of every metric as CSV: {wall:>8.0} ms, CPU {cpu:.0} ms, peak {peak:.0} MB");
    assert!(ok, "a query of the store took more than {LIMIT_MS} ms");
}
