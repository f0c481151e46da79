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

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Run folders pushed (default).
const RUNS: usize = 100;
const BENCHES: usize = 32;
const DEVICES: usize = 4;
/// The bytes of the large push's log.
const LARGE: usize = 200 << 20;

/// Writes run `run` (128 report files) into `folder`.
fn write_run(folder: &Path, run: usize) {
    std::fs::create_dir_all(folder).unwrap();
    for b in 0..BENCHES {
        for d in 0..DEVICES {
            let items = 100.0 * (b + 1) as f64 * (1.0 + 0.001 * ((run * 7 + d) % 11) as f64);
            let t = 320.0 / items;
            let report = serde_json::json!({
                "name": format!("bench{b:02}"), "suite": "baselines", "run_id": run, "vcd": d.to_string(),
                "completed": true, "hostname": "site-node", "gpu": "Model X",
                "start_time": format!("2026-{:02}-{:02} {:02}:00:{d:02}.000000", 1 + run % 12, 1 + run % 28, run % 24),
                "batch_size": 64,
                "train": {"avg": t, "min": t * 0.9, "max": t * 1.1, "sd": t * 0.01, "count": 20, "unit": "s"},
                "train_item": {"avg": items, "min": items * 0.9, "max": items * 1.1, "unit": "items/sec"},
                "batch_loss": [2.0, 1.0],
            });
            let name = format!("baselines.bench{b:02}.R{run}.D{d}.20260101-000000-{:06}.json", b * DEVICES + d);
            std::fs::write(folder.join(name), report.to_string()).unwrap();
        }
    }
}

/// The resident memory of process `pid` now and at its peak, in MB.
fn memory_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Runs `mlb ARGS`, which must succeed.
fn mlb(mlb: &str, args: &[&str]) {
    let out = Command::new(mlb).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Median and largest of `times`.
fn spread(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() - 1])
}

fn main() {
    let runs: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(RUNS);
    let bin = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let folders: Vec<_> = (0..runs).map(|r| dir.path().join("site").join(format!("run{r:03}"))).collect();
    for (r, folder) in folders.iter().enumerate() {
        write_run(folder, r);
    }
    let url = format!("sqlite:{}", dir.path().join("collect.db").display());
    let key = dir.path().join("site.key");
    let key_text = key.to_str().unwrap();
    mlb(
        bin,
        &[
            "db",
            "keys",
            "add",
            "site",
            "--system",
            "sysP",
            "--per-minute",
            "100000",
            "--key-file",
            key_text,
            "--db",
            &url,
        ],
    );
    let log = std::fs::File::create(dir.path().join("serve.log")).unwrap();
    let mut server = Command::new(bin)
        .args(["serve", "--db", &url, "--bind", "127.0.0.1:0", "--accept-push"])
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let addr = loop {
        let text = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
        if let Some(line) =
            BufReader::new(text.as_bytes()).lines().map_while(Result::ok).find(|l| l.contains("http://"))
        {
            break line[line.find("http://").unwrap()..].split('/').take(3).collect::<Vec<_>>().join("/");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let before = memory_mb(server.id());
    let pass = |label: &str| {
        let started = Instant::now();
        let times: Vec<f64> = folders
            .iter()
            .map(|folder| {
                let t = Instant::now();
                mlb(bin, &["db", "push", folder.to_str().unwrap(), "--to", &addr, "--key-file", key_text]);
                t.elapsed().as_secs_f64()
            })
            .collect();
        let all = started.elapsed().as_secs_f64();
        let (median, slowest) = spread(times);
        println!(
            "{label}: {runs} pushes of {} reports in {all:.2} s: a push {:.0} ms median, {:.0} ms slowest; \
             {:.1} pushes/s, {:.0} reports/s",
            BENCHES * DEVICES,
            median * 1000.0,
            slowest * 1000.0,
            runs as f64 / all,
            (runs * BENCHES * DEVICES) as f64 / all
        );
    };
    pass("first push");
    let after_first = memory_mb(server.id());
    pass("pushed again (nothing new)");
    let after = memory_mb(server.id());
    println!(
        "server memory: {:.0} MB before, {:.0} MB after the first pass, {:.0} MB after both; peak {:.0} MB",
        before.0, after_first.0, after.0, after.1
    );
    // One run with a log of LARGE bytes that do not compress: the body is
    // written to disk as it comes, so the peak should not grow by it.
    let large = dir.path().join("site").join("large");
    write_run(&large, runs);
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
    mlb(bin, &["db", "push", large.to_str().unwrap(), "--to", &addr, "--key-file", key_text]);
    let (now, peak) = memory_mb(server.id());
    println!(
        "a push of {} MB (a 128-report run and a log that does not compress): {:.2} s; server {now:.0} MB, peak {peak:.0} MB",
        LARGE >> 20,
        t.elapsed().as_secs_f64()
    );
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(server.id() as i32), nix::sys::signal::SIGTERM);
    let _ = server.wait();
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
