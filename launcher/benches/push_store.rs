//! What a collecting server costs (docs/serve.md, "Collecting results from
//! many sites"): 100 run folders of 128 report files each (32 benches on 4
//! devices) pushed one after the other with `mlb db push` to `mlb serve
//! --accept-push` on this host, as a site's runs arrive; then all pushed
//! again (nothing new: each folder's files are known by their hashes);
//! beside `mlb db import` of the same folders into a store of its own.
//! Prints the time of a push (median, slowest), pushes and reports a
//! second, and the server's resident memory before, after and at its peak;
//! then that peak after one push of 200 MB that does not compress.
//!
//! Run with `cargo bench -p mlb --bench push_store [-- RUNS]`.

mod memory;
#[allow(dead_code)] // the store the other benches fill: only its run writer here
mod runs_store;
mod served;

use memory::memory_mb;
use runs_store::{median, write_run};
use served::Served;
use std::process::Command;
use std::time::Instant;

/// Run folders pushed (default).
const RUNS: usize = 100;
const BENCHES: usize = 32;
const DEVICES: usize = 4;
/// The bytes of the large push's log.
const LARGE: usize = 200 << 20;

/// Runs `mlb ARGS`, which must succeed.
fn mlb(mlb: &str, args: &[&str]) {
    let out = Command::new(mlb).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn main() {
    let runs: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(RUNS);
    let bin = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let folders: Vec<_> = (0..runs).map(|r| dir.path().join("site").join(format!("run{r:03}"))).collect();
    for (r, folder) in folders.iter().enumerate() {
        write_run(folder, "site-node", 1.0, r, BENCHES, DEVICES);
    }
    let url = format!("sqlite:{}", dir.path().join("collect.db").display());
    let key = dir.path().join("site.key");
    let key = key.to_str().unwrap();
    mlb(
        bin,
        &["db", "keys", "add", "site", "--system", "sysP", "--per-minute", "100000", "--key-file", key, "--db", &url],
    );
    let served = Served::start(bin, &url, &["--accept-push"]);
    let addr = format!("http://{}", served.addr);
    let push = |folder: &std::path::Path| {
        mlb(bin, &["db", "push", folder.to_str().unwrap(), "--to", &addr, "--key-file", key])
    };
    let before = memory_mb(served.server.id());
    let pass = |label: &str| {
        let started = Instant::now();
        let times: Vec<f64> = folders
            .iter()
            .map(|folder| {
                let t = Instant::now();
                push(folder);
                t.elapsed().as_secs_f64()
            })
            .collect();
        let all = started.elapsed().as_secs_f64();
        let slowest = times.iter().copied().fold(0.0, f64::max);
        println!(
            "{label}: {runs} pushes of {} reports in {all:.2} s: a push {:.0} ms median, {:.0} ms slowest; \
             {:.1} pushes/s, {:.0} reports/s",
            BENCHES * DEVICES,
            median(times) * 1000.0,
            slowest * 1000.0,
            runs as f64 / all,
            (runs * BENCHES * DEVICES) as f64 / all
        );
    };
    pass("first push");
    let after_first = memory_mb(served.server.id());
    pass("pushed again (nothing new)");
    let after = memory_mb(served.server.id());
    println!(
        "server memory: {:.0} MB before, {:.0} MB after the first pass, {:.0} MB after both; peak {:.0} MB",
        before.0, after_first.0, after.0, after.1
    );
    // One run with a log of LARGE bytes that do not compress: the body is
    // written to disk as it comes, so the peak should not grow by it.
    let large = dir.path().join("site").join("large");
    write_run(&large, "site-node", 1.0, runs, BENCHES, DEVICES);
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let noise: Vec<u8> = (0..LARGE / 8)
        .flat_map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()
        })
        .collect();
    std::fs::write(large.join("worker.log"), noise).unwrap();
    let t = Instant::now();
    push(&large);
    let (now, peak) = memory_mb(served.server.id());
    println!(
        "a push of {} MB (a 128-report run and a log that does not compress): {:.2} s; server {now:.0} MB, peak {peak:.0} MB",
        LARGE >> 20,
        t.elapsed().as_secs_f64()
    );
    drop(served);
    let local = format!("sqlite:{}", dir.path().join("local.db").display());
    let started = Instant::now();
    for folder in &folders {
        mlb(bin, &["db", "import", folder.to_str().unwrap(), "--system", "sysP", "--db", &local]);
    }
    println!(
        "beside it: {runs} `mlb db import` of the same folders, one a command, in {:.2} s",
        started.elapsed().as_secs_f64()
    );
}
