//! The launcher's own cost, end to end, with the real binary:
//!
//! - `mlb worker` alone running a one-observation spin job (`size: 0`: the
//!   step does no work), the floor any launch pays;
//! - `mlb --jobs` running the same config as a one-slot `student` job, with
//!   cgroups (when this host allows them) and with `--no-cgroups`;
//! - `mlb plugins list` over the one plugin: the probe a launch makes to
//!   resolve a plugin job's plugin;
//! - `mlb --jobs --dry-run` of a generated jobs file of 1,000 configs.
//!
//! Medians of several runs, in milliseconds. Run with `cargo bench -p mlb
//! --bench launcher_overhead`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 15;
const DRY_RUNS: usize = 7;
const CONFIG: &str = r#"{"repeat": 1, "number": 1, "skip": 0, "size": 0}"#;

fn median_ms(runs: usize, mut once: impl FnMut()) -> f64 {
    once(); // warm the page cache
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            once();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn run(cmd: &mut Command) {
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().expect("mlb runs");
    assert!(status.success(), "{cmd:?} failed");
}

fn spin_copy(mlb: &Path, dir: &Path) -> PathBuf {
    let target = mlb.parent().unwrap();
    let built = [target.join("deps/libmlb_spin.so"), target.join("libmlb_spin.so")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("libmlb_spin.so is built (spin is a dev-dependency of mlb)");
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let copy = plugins.join("libmlb_spin.so");
    std::fs::copy(built, &copy).unwrap();
    copy
}

fn main() {
    let mlb = PathBuf::from(env!("CARGO_BIN_EXE_mlb"));
    let work = tempfile::tempdir().unwrap();
    let plugin = spin_copy(&mlb, work.path());
    let out = work.path().join("out");

    let worker = median_ms(RUNS, || {
        run(Command::new(&mlb)
            .args(["worker", "--plugin"])
            .arg(&plugin)
            .args(["--config", CONFIG, "--outdir"])
            .arg(&out))
    });

    let jobs = work.path().join("one.json");
    let job = format!(r#"[{{"name": "one", "plugin": "spin", "args": {CONFIG}, "cgroup": "student"}}]"#);
    std::fs::write(&jobs, job).unwrap();
    let launch = |extra: &[&str]| {
        median_ms(RUNS, || {
            run(Command::new(&mlb)
                .arg("--plugin-dir")
                .arg(plugin.parent().unwrap())
                .arg("--jobs")
                .arg(&jobs)
                .arg("--outdir")
                .arg(&out)
                .args(["--devices", "1"])
                .args(extra))
        })
    };
    let probe = median_ms(RUNS, || {
        run(Command::new(&mlb).arg("--plugin-dir").arg(plugin.parent().unwrap()).args(["plugins", "list", "--json"]))
    });
    let host = mlb::host::detect(&mlb::host::Probe::this_host());
    let with_cgroups = host.cgroup.can_create.then(|| launch(&[]));
    let without = launch(&["--no-cgroups"]);

    let big = work.path().join("big.json");
    let values = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    std::fs::write(
        &big,
        format!(
            r#"[{{"name": "grid", "cmd": "./run.sh", "args": {{"--bs": [{}], "--lr": [{}], "--arch": [{}], "--report": "$OUTPUT_DIRECTORY", "--cuda": ""}}, "cgroup": "student"}}]"#,
            values(10, &|i| (16 << i).to_string()),
            values(10, &|i| format!("0.{}", i + 1)),
            values(10, &|i| format!("\"net{i}\"")),
        ),
    )
    .unwrap();
    let dry = median_ms(DRY_RUNS, || {
        run(Command::new(&mlb).arg("--jobs").arg(&big).args(["--dry-run", "--devices", "1", "--no-cgroups"]))
    });

    println!("launcher overhead (median of {RUNS} runs, one-observation spin job, size 0):");
    println!("  mlb worker alone                       {worker:8.1} ms");
    match with_cgroups {
        Some(ms) => println!("  mlb --jobs, 1 slot, cgroups            {ms:8.1} ms  (+{:.1} ms)", ms - worker),
        None => println!(
            "  mlb --jobs, 1 slot, cgroups            (this host cannot create cgroups: {:?})",
            host.cgroup.reason
        ),
    }
    println!("  mlb --jobs, 1 slot, --no-cgroups       {without:8.1} ms  (+{:.1} ms)", without - worker);
    println!("  of which: resolving the plugin (mlb plugins list, one probe)  {probe:8.1} ms");
    println!("dry run of a 1,000-config jobs file (median of {DRY_RUNS}):  {dry:8.1} ms");
}
