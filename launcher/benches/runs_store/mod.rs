//! The store the query benches time (db_queries, serve_api, serve_load,
//! serve_pages): 1,000 runs, 200 for each of 5 systems, 100 reports a run
//! (20 benches on 5 devices), about a million metric rows, filled by `mlb
//! db import`.

use std::path::Path;
use std::time::Instant;

pub const SYSTEMS: [&str; 5] = ["sysA", "sysB", "sysC", "sysD", "sysE"];
pub const RUNS_PER_SYSTEM: usize = 200;
pub const BENCHES: usize = 20;
pub const DEVICES: usize = 5;

/// Writes the runs of system `s` under `dir`: one folder per run.
pub fn write_system(dir: &Path, s: usize) {
    for run in 0..RUNS_PER_SYSTEM {
        write_run(&dir.join(format!("run{run:03}")), SYSTEMS[s], 1.0 + 0.1 * s as f64, run, BENCHES, DEVICES);
    }
}

/// Writes run `run` of `host` into `folder`: `benches` benches on
/// `devices` devices, a report file each, at `scale` times the items/s of
/// the first system.
pub fn write_run(folder: &Path, host: &str, scale: f64, run: usize, benches: usize, devices: usize) {
    std::fs::create_dir_all(folder).unwrap();
    let (day, hour) = (1 + run % 28, run / 28);
    for b in 0..benches {
        for d in 0..devices {
            let items = 100.0 * (b + 1) as f64 * scale * (1.0 + 0.001 * ((run * 7 + d) % 11) as f64);
            let t = 320.0 / items;
            let report = serde_json::json!({
                "name": format!("bench{b:02}"), "suite": "baselines", "run_id": run, "vcd": d.to_string(),
                "completed": true, "hostname": host, "gpu": "Model X",
                "start_time": format!("2026-{:02}-{day:02} {hour:02}:00:{:02}.000000", 1 + run % 12, d),
                "batch_size": 64,
                "train": {"avg": t, "min": t * 0.9, "max": t * 1.1, "sd": t * 0.01, "count": 20, "unit": "s"},
                "train_item": {"avg": items, "min": items * 0.9, "max": items * 1.1, "unit": "items/sec"},
                "batch_loss": [2.0, 1.0],
            });
            let name = format!("baselines.bench{b:02}.R{run}.D{d}.20260101-000000-{:06}.json", b * devices + d);
            std::fs::write(folder.join(name), report.to_string()).unwrap();
        }
    }
}

/// The store in `file` (`None`: a new one in `dir`), filled with every
/// system's runs unless it is there already; returns its URL and the
/// seconds the filling took.
pub fn fill(mlb: &str, dir: &Path, file: Option<std::path::PathBuf>) -> (String, f64) {
    let file = file.unwrap_or_else(|| dir.join("results.db"));
    let url = format!("sqlite:{}", file.display());
    let t0 = Instant::now();
    let filled = file.exists();
    for (s, name) in SYSTEMS.iter().enumerate().filter(|_| !filled) {
        let folder = dir.join(name);
        write_system(&folder, s);
        let out = std::process::Command::new(mlb)
            .args(["db", "import", "--db", &url, "--system", name])
            .arg(&folder)
            .output()
            .unwrap();
        assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
        std::fs::remove_dir_all(&folder).unwrap();
    }
    (url, t0.elapsed().as_secs_f64())
}

/// The median of `times`.
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
