//! How `--resume` scales: `mlb --jobs FILE --resume` (the real binary) over
//! an output folder that already holds a complete report of every instance,
//! so that every config is skipped and nothing runs. A `cmd` job swept over
//! 1,000, 2,000 and 5,000 values, of two instances each (10,000 reports at
//! the largest). The bench fails when 5,000 configs take more than
//! [`LIMIT_S`] seconds, or when the largest input costs more than
//! [`MAX_GROWTH`] times the smallest (linear work gives about 5, quadratic
//! about 25).
//!
//! Medians of a few runs, in seconds. Run with
//! `cargo bench -p mlb --bench resume_scale`.

use mlb_record::contract::record::Identity;
use mlb_record::contract::Report;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const SIZES: [usize; 3] = [1_000, 2_000, 5_000];
/// Instances per config (`--devices 2`, one per slot).
const INSTANCES: u32 = 2;
const RUNS: usize = 3;
/// Most the largest input (5x the smallest) may cost, as a multiple of the smallest.
const MAX_GROWTH: f64 = 10.0;
/// Most skipping 5,000 complete configs may take.
const LIMIT_S: f64 = 2.0;

/// One job whose option takes `n` values (`n` configs of one name, as a
/// sweep gives); the suite is the file's base name.
fn jobs(n: usize) -> String {
    let values: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!(
        r#"[{{"name": "sweep", "cmd": "/bin/true", "args": {{"--a": [{}], "--b": "x"}}, "cgroup": "student"}}]"#,
        values.join(", ")
    )
}

/// A completed report of every instance of the `n` configs of suite `suite`, run 0.
fn complete_reports(suite: &str, n: usize, outdir: &Path) {
    std::fs::create_dir_all(outdir).unwrap();
    for i in 0..n {
        for jr_id in 0..INSTANCES {
            let id = Identity { suite: suite.into(), name: "sweep".into(), run_id: 0, jr_id, vcd: jr_id.to_string() };
            let mut args = serde_json::Map::new();
            args.insert("a".into(), i.into());
            args.insert("b".into(), "x".into());
            Report { args, completed: true, ..Report::new(&id) }.write(outdir).expect("report written");
        }
    }
}

/// Median wall time (s) of `mlb --jobs FILE --resume` into `outdir`; checks
/// that every config was skipped.
fn resume_s(mlb: &Path, jobs: &Path, outdir: &Path, lock: &Path, n: usize) -> f64 {
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t0 = Instant::now();
            let out = Command::new(mlb)
                .arg("--jobs")
                .arg(jobs)
                .arg("--outdir")
                .arg(outdir)
                .args(["--resume", "--no-cgroups", "--devices", &INSTANCES.to_string()])
                .args(["--max-configs", &n.to_string()])
                .env("MLB_LOCK", lock)
                .env("NO_COLOR", "1")
                .stdin(Stdio::null())
                .output()
                .expect("mlb starts");
            let elapsed = t0.elapsed().as_secs_f64();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "mlb --resume failed: {stderr}");
            let skipped = stderr.lines().filter(|l| l.contains("its reports are complete (--resume)")).count();
            assert_eq!(skipped, n, "every config is skipped");
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[RUNS / 2]
}

fn main() {
    let mlb = Path::new(env!("CARGO_BIN_EXE_mlb"));
    let dir = tempfile::tempdir().unwrap();
    let mut figures = Vec::new();
    for n in SIZES {
        let suite = format!("resume{n}");
        let jobs_file = dir.path().join(format!("{suite}.json"));
        std::fs::write(&jobs_file, jobs(n)).unwrap();
        let outdir = dir.path().join(format!("out{n}"));
        complete_reports(&suite, n, &outdir);
        let s = resume_s(mlb, &jobs_file, &outdir, &dir.path().join("mlb.lock"), n);
        println!("--resume {n:>5} configs ({} reports): {s:>7.2} s", n * INSTANCES as usize);
        figures.push(s);
    }
    let growth = figures[SIZES.len() - 1] / figures[0];
    let largest = figures[SIZES.len() - 1];
    let ok = growth <= MAX_GROWTH && largest <= LIMIT_S;
    println!(
        "growth {}x input: {growth:.1}x time (limit {MAX_GROWTH}x); {} configs in {largest:.2} s (limit {LIMIT_S} s) {}",
        SIZES[2] / SIZES[0],
        SIZES[2],
        if ok { "ok" } else { "TOO SLOW" }
    );
    assert!(ok, "--resume must stay linear and skip 5,000 configs within {LIMIT_S} s");
}
