//! The known store of the pages' tests: report files written as the
//! worker writes them (telemetry, a failed instance's log, the verdicts of
//! `mlb accept`), imported with `mlb db import`.

use crate::common::records::{file_name, record, Run};
use mlb_record::contract::record::write_atomic;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// The benches of the known store and their items/s on `alpha` (GPU 0).
pub const BENCHES: [(&str, f64); 2] = [("convnet", 200.0), ("vae", 7400.0)];
/// How many times faster `beta` is than `alpha`.
pub const BETA_SPEED: f64 = 1.5;
/// The days (January 2026) of `alpha`'s runs; its last run is 20% slower.
pub const ALPHA_DAYS: [u32; 6] = [1, 2, 3, 4, 5, 6];
/// The days of `beta`'s runs.
pub const BETA_DAYS: [u32; 2] = [3, 4];
/// The names of the 25 benches of the system `wide`, long enough not to
/// fit side by side in the compare chart.
pub fn wide_benches() -> Vec<String> {
    (0..25).map(|i| format!("resnet50-bs{}-fp16-{i:02}", 64 << (i % 3))).collect()
}

/// The items/s of `bench` on `system`'s run of `day`, on device `vcd`:
/// four devices a hair apart, `alpha`'s last run 20% slower.
pub fn items(system: &str, base: f64, day: u32, vcd: usize) -> f64 {
    let speed = if system == "beta" { BETA_SPEED } else { 1.0 };
    let slow = if system == "alpha" && day == *ALPHA_DAYS.last().unwrap() { 0.8 } else { 1.0 };
    base * speed * slow * (1.0 + 0.004 * vcd as f64 + 0.002 * f64::from(day % 3))
}

/// The telemetry of an instance on one GPU: 60 half-second slices.
fn telemetry() -> Value {
    let t: Vec<f64> = (0..60).map(|i| f64::from(i) * 0.5 + 0.25).collect();
    let power: Vec<f64> = (0..60).map(|i| 290.0 + f64::from(i % 4)).collect();
    let clock: Vec<f64> = (0..60).map(|_| 1530.0).collect();
    json!({"sample_hz": 10.0, "samples": 300, "window_seconds": 30.0, "items": 3000,
        "energy": {"joules": 9000.0, "joules_per_item": 3.0, "source": "gpu"},
        "gpus": [{"device": "0", "throttled_fraction": 0.0, "degraded_link": false}],
        "slot": {"cpu_throttled_fraction": null}, "throttled": false, "degraded_link": false,
        "timeline": {"t": t, "gpu0.power_w": power, "gpu0.sm_clock_mhz": clock}})
}

/// The last line of the log of `alpha`'s failed vae instance.
pub const FAILED_LOG_END: &str = "RuntimeError: CUDA error: an illegal memory access was encountered";

/// The verdict of `mlb accept` kept beside `alpha`'s first run.
fn acceptance() -> Value {
    json!({"schema": 1, "mlb_version": "0.1.0", "written": "2026-01-01T12:00:00Z", "request": {}, "inputs": [],
        "accepted": false, "verdicts": [
            {"rule": "throughput", "kind": "throughput", "origin": "default", "subject": {"bench": "convnet", "gpu": "0"},
             "measured": 201.6, "bound": 190.0, "margin": 0.06, "unit": "items/s", "outcome": "pass", "note": ""},
            {"rule": "completed", "kind": "completed", "origin": "default", "subject": {"bench": "vae"},
             "measured": null, "bound": null, "margin": null, "unit": "", "outcome": "fail", "note": "1 instance failed"}]})
}

/// Writes one run folder of `system` started on `day`: each bench on four
/// GPUs; `alpha`'s first run has telemetry on GPU 0, a failed vae with its
/// log, and the verdicts of `mlb accept`.
fn write_run(dir: &Path, system: &str, day: u32, benches: &[(String, f64)]) {
    for (bench, base) in benches {
        for vcd in 0..4 {
            let device = vcd.to_string();
            let r = Run {
                suite: "fast",
                bench,
                run: u64::from(day),
                vcd: &device,
                items_per_sec: items(system, *base, day, vcd),
                gpu: Some("Model X"),
            };
            let mut report = record(&r);
            report["start_time"] = json!(format!("2026-01-{day:02}T10:00:0{vcd}.000000+00:00"));
            report["hostname"] = json!(format!("{system}-host"));
            if system == "alpha" && day == ALPHA_DAYS[0] && vcd == 0 && bench == "convnet" {
                report["telemetry"] = telemetry();
            }
            if system == "alpha" && day == ALPHA_DAYS[0] && vcd == 3 && bench == "vae" {
                report["completed"] = json!(false);
                report["log"] = json!("logs/vae.D3.log");
                std::fs::create_dir_all(dir.join("logs")).unwrap();
                std::fs::write(dir.join("logs/vae.D3.log"), format!("step 1\nstep 2\n{FAILED_LOG_END}\n")).unwrap();
                std::fs::write(dir.join("acceptance.json"), acceptance().to_string()).unwrap();
            }
            write_atomic(dir, &file_name(&r), &report).unwrap();
        }
    }
}

/// Fills the store at `url` with the known runs: `alpha` (6 runs, the last
/// one slower), `beta` (2 runs, 1.5 times as fast) and `wide` (one run of
/// 25 benches), each run imported with a tag `site=lab`, `wide`'s with
/// `site=far`.
pub fn fill(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let known: Vec<(String, f64)> = BENCHES.iter().map(|(b, v)| (b.to_string(), *v)).collect();
    let wide: Vec<(String, f64)> = wide_benches().into_iter().enumerate().map(|(i, b)| (b, 100.0 + i as f64)).collect();
    let runs = ALPHA_DAYS
        .iter()
        .map(|d| ("alpha", *d, &known, "lab"))
        .chain(BETA_DAYS.iter().map(|d| ("beta", *d, &known, "lab")))
        .chain([("wide", 7, &wide, "far")]);
    for (system, day, benches, site) in runs {
        let folder = dir.path().join(format!("{system}-{day}"));
        write_run(&folder, system, day, benches);
        let out = Command::new(crate::common::mlb())
            .args(["db", "import", "--db", url, "--system", system, "--label", &format!("site={site}")])
            .arg(&folder)
            .output()
            .unwrap();
        assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Makes an empty store at `url` (`mlb db import` of an empty folder).
pub fn fill_none(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(crate::common::mlb()).args(["db", "import", "--db", url]).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
}
