//! What fingerprinting costs a deterministic run (docs/determinism.md,
//! "Fingerprints"): real `mlb worker` runs of gpt and convnet (the release
//! libtorch plugin beside the `mlb` under test, when built) and spin, each
//! deterministic, fingerprinted every 10 steps against never (an interval
//! past the run's last step), in alternating rounds on one thread.
//!
//! Printed per workload: the median step time of each (the report's
//! `train.avg` over `number` steps), and the median of the rounds' ratios,
//! checked against the issue's limit of 2%. Run with `cargo xtask bench
//! determinism` (which builds the libtorch plugin first) or `cargo bench -p
//! mlb --bench determinism_cost`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Alternating rounds per workload (each: one run fingerprinted, one not).
const ROUNDS: usize = 5;
/// The most fingerprinting every 10 steps may add to a step, as a ratio.
const LIMIT: f64 = 1.02;
/// An interval no run reaches: deterministic, never fingerprinted.
const NEVER: u64 = 1 << 40;

/// A workload of a plugin library, at the size the bench runs it.
struct Case {
    library: PathBuf,
    workload: &'static str,
    args: &'static str,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Seconds per step of one deterministic run of `case`, fingerprinted every
/// `every` steps.
fn step_seconds(case: &Case, every: u64, outdir: &Path) -> f64 {
    let mut config: serde_json::Map<String, Value> = serde_json::from_str(case.args).unwrap();
    config.insert("deterministic".into(), true.into());
    config.insert("fingerprint_every".into(), every.into());
    let _ = std::fs::remove_dir_all(outdir);
    let done = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["worker", "--threads", "1", "--workload", case.workload, "--plugin"])
        .arg(&case.library)
        .args(["--config", &Value::Object(config.clone()).to_string(), "--outdir"])
        .arg(outdir)
        .output()
        .unwrap();
    assert!(done.status.success(), "{}: {}", case.workload, String::from_utf8_lossy(&done.stderr));
    let report = std::fs::read_dir(outdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let prints = report["determinism"]["fingerprints"].as_array().map_or(0, Vec::len);
    assert_eq!(prints > 0, every != NEVER, "{}: {prints} fingerprints at every {every}", case.workload);
    report["train"]["avg"].as_f64().unwrap() / config["number"].as_f64().unwrap()
}

fn main() {
    let release = PathBuf::from(env!("CARGO_BIN_EXE_mlb")).parent().unwrap().to_path_buf();
    let spin = release.join("libmlb_spin.so");
    if !spin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        assert!(Command::new(cargo).args(["build", "--release", "-p", "spin"]).status().unwrap().success());
    }
    let mut cases =
        vec![Case { library: spin, workload: "spin", args: r#"{"size": 256, "repeat": 6, "number": 10, "skip": 1}"# }];
    let torch = release.join("libmlb_torch.so");
    if torch.exists() {
        cases.push(Case {
            library: torch.clone(),
            workload: "gpt",
            args: r#"{"size": "tiny", "seq_len": 128, "vocab": 4096, "batch_size": 8, "precision": "fp32",
                      "warmup": 2, "repeat": 6, "number": 10, "skip": 1}"#,
        });
        cases.push(Case {
            library: torch,
            workload: "convnet",
            args: r#"{"arch": "resnet18", "image_size": 32, "classes": 10, "batch_size": 8, "workers": 0,
                      "repeat": 6, "number": 10, "skip": 1}"#,
        });
    } else {
        println!(
            "no libtorch plugin at {}: gpt and convnet left out (cargo xtask bench determinism builds it)",
            torch.display()
        );
    }
    let outdir = tempfile::tempdir().unwrap();
    println!("fingerprint cost: deterministic runs, fingerprinted every 10 steps against never; one thread; {ROUNDS} alternating rounds");
    println!("{:<10} {:>14} {:>14} {:>8}", "workload", "never ms/step", "every 10", "ratio");
    let mut over = Vec::new();
    for case in &cases {
        let (mut never, mut every, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let off = step_seconds(case, NEVER, outdir.path());
            let on = step_seconds(case, 10, outdir.path());
            ratios.push(on / off);
            never.push(off);
            every.push(on);
        }
        let ratio = median(ratios);
        println!("{:<10} {:>14.2} {:>14.2} {:>8.4}", case.workload, median(never) * 1e3, median(every) * 1e3, ratio);
        if ratio > LIMIT {
            over.push(case.workload);
        }
    }
    match over.is_empty() {
        true => println!("every workload within {:.0}% (the issue's limit)", (LIMIT - 1.0) * 100.0),
        false => println!("OVER the {:.0}% limit: {}", (LIMIT - 1.0) * 100.0, over.join(", ")),
    }
}
