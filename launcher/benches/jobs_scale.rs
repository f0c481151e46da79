//! How reading, validating and expanding a jobs file scales: `mlb --jobs
//! FILE --dry-run` (the real binary, stdout discarded) of generated files of
//! 20,000, 40,000 and 80,000 jobs (one `cmd` job each, two arguments), and of
//! one job of as many arguments. Doubling the input must about double the
//! time: the bench fails when the largest input takes more than
//! [`MAX_GROWTH`] times the smallest (linear work gives about 4, quadratic
//! about 16).
//!
//! Medians of a few runs, in milliseconds. Run with
//! `cargo bench -p mlb --bench jobs_scale`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const SIZES: [usize; 3] = [20_000, 40_000, 80_000];
const RUNS: usize = 3;
/// Most the largest input (4x the smallest) may cost, as a multiple of the smallest.
const MAX_GROWTH: f64 = 6.0;

/// Median wall time (ms) of `mlb --jobs FILE --dry-run`.
fn dry_run_ms(mlb: &Path, jobs: &Path, max_configs: usize) -> f64 {
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t0 = Instant::now();
            let status = Command::new(mlb)
                .arg("--jobs")
                .arg(jobs)
                .args(["--dry-run", "--devices", "1", "--max-configs", &max_configs.to_string()])
                .stdout(Stdio::null())
                .status()
                .expect("mlb starts");
            assert!(status.success(), "mlb --dry-run of {} failed", jobs.display());
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[RUNS / 2]
}

/// `n` jobs of two arguments each.
fn many_jobs(n: usize) -> String {
    let jobs: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name": "job{i}", "cmd": "/bin/true", "args": {{"--a": {i}, "--b": "x"}}, "cgroup": "student"}}"#
            )
        })
        .collect();
    format!("[{}]", jobs.join(",\n"))
}

/// One job of `n` arguments.
fn many_args(n: usize) -> String {
    let args: Vec<String> = (0..n).map(|i| format!(r#""--a{i}": {i}"#)).collect();
    format!(r#"[{{"name": "one", "cmd": "/bin/true", "args": {{{}}}}}]"#, args.join(", "))
}

/// Times each size of `make`, prints the figures and checks the growth.
fn scale(what: &str, mlb: &Path, dir: &Path, make: fn(usize) -> String) -> bool {
    let mut figures = Vec::new();
    for n in SIZES {
        let jobs = dir.join(format!("{what}-{n}.json"));
        std::fs::write(&jobs, make(n)).unwrap();
        let ms = dry_run_ms(mlb, &jobs, n);
        println!("{what:<10} {n:>6}: {ms:>9.1} ms  ({:.2} ms per 1,000)", ms / n as f64 * 1000.0);
        figures.push(ms);
    }
    let growth = figures[SIZES.len() - 1] / figures[0];
    let ok = growth <= MAX_GROWTH;
    println!(
        "{what:<10} growth {}x input: {growth:.1}x time (limit {MAX_GROWTH}x) {}",
        SIZES[2] / SIZES[0],
        if ok { "ok" } else { "TOO SLOW" }
    );
    ok
}

fn main() {
    let mlb = Path::new(env!("CARGO_BIN_EXE_mlb"));
    let dir = tempfile::tempdir().unwrap();
    let jobs = scale("jobs", mlb, dir.path(), many_jobs);
    let args = scale("arguments", mlb, dir.path(), many_args);
    assert!(jobs && args, "reading and expanding jobs files must stay linear");
}
