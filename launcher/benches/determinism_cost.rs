//! What fingerprinting costs a deterministic run (docs/determinism.md,
//! "Fingerprints"): real `mlb worker` runs of gpt and convnet (the release
//! libtorch plugin beside the `mlb` under test, when built) and spin, each
//! deterministic, fingerprinted every 10 steps against never (an interval
//! past the run's last step), in alternating rounds on one thread.
//!
//! Printed per workload: the median step time of each (the report's
//! `train.avg` over `number` steps) and the median of the rounds' ratios;
//! then what one fingerprint took inside the fingerprinted runs (the
//! report's `determinism.spent_us` over its fingerprints) and its share of
//! 10 steps, checked against the issue's limit of 2%. The share is measured
//! within each run, so a neighbour's load between two runs, which moves the
//! ratio by several percent on a shared machine, does not move it. Run with `cargo xtask bench
//! determinism` (which builds the libtorch plugin first) or `cargo bench -p
//! mlb --bench determinism_cost`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Alternating rounds per workload (each: one run fingerprinted, one not).
const ROUNDS: usize = 5;
/// The most fingerprinting every 10 steps may add to a step's time.
const LIMIT: f64 = 0.02;
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

/// What one run measured: seconds per step, and seconds per fingerprint
/// (`None` for a run that took none).
struct Measured {
    step: f64,
    fingerprint: Option<f64>,
}

/// One deterministic run of `case`, fingerprinted every `every` steps.
fn measure(case: &Case, every: u64, outdir: &Path) -> Measured {
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
    let block = &report["determinism"];
    let prints = block["fingerprints"].as_array().map_or(0, Vec::len);
    assert_eq!(prints > 0, every != NEVER, "{}: {prints} fingerprints at every {every}", case.workload);
    let fingerprint = (prints > 0).then(|| block["spent_us"].as_f64().unwrap() * 1e-6 / prints as f64);
    Measured { step: report["train"]["avg"].as_f64().unwrap() / config["number"].as_f64().unwrap(), fingerprint }
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
    println!(
        "{:<9} {:>12} {:>12} {:>7} {:>15} {:>13}",
        "workload", "never ms/st", "every 10", "ratio", "ms/fingerprint", "share of 10"
    );
    let mut over = Vec::new();
    for case in &cases {
        let (mut never, mut every, mut ratios, mut prints, mut shares) = (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..ROUNDS {
            let off = measure(case, NEVER, outdir.path());
            let on = measure(case, 10, outdir.path());
            let print = on.fingerprint.expect("fingerprinted");
            ratios.push(on.step / off.step);
            shares.push(print / (10.0 * on.step));
            prints.push(print);
            never.push(off.step);
            every.push(on.step);
        }
        let share = median(shares);
        println!(
            "{:<9} {:>12.2} {:>12.2} {:>7.4} {:>15.3} {:>12.2}%",
            case.workload,
            median(never) * 1e3,
            median(every) * 1e3,
            median(ratios),
            median(prints) * 1e3,
            share * 100.0
        );
        if share > LIMIT {
            over.push(case.workload);
        }
    }
    match over.is_empty() {
        true => println!("every workload within {:.0}% (the issue's limit)", LIMIT * 100.0),
        false => println!("OVER the {:.0}% limit: {}", LIMIT * 100.0, over.join(", ")),
    }
}
