//! mlb's port of MLPerf's RCP check against the Python package's own answers
//! (`mlperf_logging.rcp_checker`, the release `common::python` pins), on reference sets the
//! package ships: every point's statistics, the pruning, and the verdict on
//! submissions at, between, below and above the reference batch sizes, fast
//! and slow, with runs that did not converge, in both passes. Needs the
//! PyTorch venv's python (torch tier); the package is installed beside it.

use crate::common::{python, text};
use mlb::quality::rcp::{Checker, Pass, RcpSet};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Reference sets of the package: usage, ruleset, file under rcp_checker/.
const SETS: [(&str, &str, &str); 4] = [
    ("training", "4.0.0", "training_4.0.0/rcps_resnet.json"),
    ("training", "4.0.0", "training_4.0.0/rcps_bert.json"),
    ("training", "4.0.0", "training_4.0.0/rcps_ssd.json"),
    ("hpc", "3.0.0", "hpc_3.0.0/rcps_deepcam.json"),
];

/// Agreement asked of every figure, relative to its size (exact to 1e-9).
const TOLERANCE: f64 = 1e-9;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The package's folder (PYTHONPATH) and the folder of its checker.
fn package() -> (PathBuf, PathBuf) {
    let folder = python::mlperf_logging();
    let out = Command::new(python::venv_python())
        .args(["-c", "import os, mlperf_logging.rcp_checker as r; print(os.path.dirname(r.__file__))"])
        .env("PYTHONPATH", &folder)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    let checker = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    (folder, checker)
}

/// The package's answer on `cases` for one reference set.
fn answer(folder: &Path, rcp: &Path, usage: &str, ruleset: &str, cases: &Value) -> Value {
    let mut child = Command::new(python::venv_python())
        .arg(fixture("quality/rcp_package_answer.py"))
        .arg(rcp)
        .args([usage, ruleset])
        .env("PYTHONPATH", folder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(cases.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn close(ours: f64, theirs: &Value, what: &str) {
    let theirs = theirs.as_f64().unwrap_or_else(|| panic!("{what}: {theirs}"));
    assert!((ours - theirs).abs() <= TOLERANCE * theirs.abs().max(1.0), "{what}: mlb {ours}, package {theirs}");
}

/// `runs` convergence points around `mean x factor`, spread by a few percent
/// and rounded to 3 decimals as the package reads them from logs.
fn around(mean: f64, factor: f64, runs: usize) -> Vec<Value> {
    (0..runs)
        .map(|k| {
            let spread = 1.0 + 0.04 * (k as f64 - runs as f64 / 2.0) / runs as f64;
            json!((mean * factor * spread * 1000.0).round() / 1000.0)
        })
        .collect()
}

/// A batch size as a log writes it: an integer.
fn batch(bs: f64) -> Value {
    json!(bs as u64)
}

/// Submissions at every point's batch size, between neighbours, below the
/// smallest and above the largest, at several speeds, and with one and two
/// runs that did not converge.
fn cases(points: &[(f64, f64)], runs: usize) -> Vec<Value> {
    let mut cases = Vec::new();
    let mut at = |bs: f64, mean: f64| {
        for factor in [1.1, 1.0, 0.97, 0.9, 0.5] {
            cases.push(json!({"bs": batch(bs), "runs": around(mean, factor, runs)}));
        }
    };
    for &(bs, mean) in points {
        at(bs, mean);
    }
    for pair in points.windows(2) {
        let ((b0, m0), (b1, m1)) = (pair[0], pair[1]);
        if b1 - b0 >= 2.0 {
            at(((b0 + b1) / 2.0).floor(), (m0 + m1) / 2.0);
        }
    }
    let (&(first, m_first), &(last, m_last)) = (points.first().unwrap(), points.last().unwrap());
    if first >= 2.0 {
        at((first / 2.0).floor(), m_first);
    }
    at(last * 2.0, m_last);
    let mut one_failed = around(m_first, 1.0, runs);
    one_failed[0] = Value::Null;
    cases.push(json!({"bs": batch(first), "runs": one_failed.clone()}));
    one_failed[1] = Value::Null;
    cases.push(json!({"bs": batch(first), "runs": one_failed}));
    cases
}

#[test]
fn the_port_agrees_with_the_package_on_its_reference_sets() {
    let (folder, checker_dir) = package();
    let mut outcomes = std::collections::HashSet::new();
    for (usage, ruleset, file) in SETS {
        let rcp = checker_dir.join(file);
        let set = RcpSet::read(&rcp).unwrap();
        let theirs = answer(&folder, &rcp, usage, ruleset, &json!([]));
        let runs = theirs["submission_runs"].as_u64().unwrap() as usize;
        let ours = Checker::new(&set, runs);

        let points = ours.points(Pass::Full);
        let their_points = theirs["points"].as_array().unwrap();
        assert_eq!(points.len(), their_points.len(), "{file}");
        for (p, t) in points.iter().zip(their_points) {
            assert_eq!(p.name, t["name"], "{file}: the points by batch size");
            for (ours, key) in
                [(p.mean, "mean"), (p.stdev, "stdev"), (p.min_mean, "min_mean"), (p.max_speedup, "max_speedup")]
            {
                close(ours, &t[key], &format!("{file} {} {key}", p.name));
            }
        }
        let pruned: Vec<&str> = ours.points(Pass::Pruned).iter().map(|p| p.name.as_str()).collect();
        assert_eq!(json!(pruned), theirs["pruned"], "{file}: pruning");

        let by_bs: Vec<(f64, f64)> = points.iter().map(|p| (p.batch_size, p.mean)).collect();
        let cases = cases(&by_bs, runs);
        let theirs = answer(&folder, &rcp, usage, ruleset, &json!(cases));
        let mut failed = 0;
        for (case, their) in cases.iter().zip(theirs["cases"].as_array().unwrap()) {
            let bs = case["bs"].as_f64().unwrap();
            let runs: Vec<Option<f64>> = case["runs"].as_array().unwrap().iter().map(Value::as_f64).collect();
            for (pass, key) in [(Pass::Pruned, "pruned_rcps"), (Pass::Full, "full_rcps")] {
                let ours = ours.check(bs, &runs, pass);
                let their = &their[key];
                let what = format!("{file} {key} bs {bs} runs {runs:?}");
                assert_eq!(ours.outcome.to_string(), their["message"], "{what}");
                assert_eq!(json!(ours.passed), their["passed"], "{what}");
                close(ours.norm_factor, &their["norm"], &what);
                failed += usize::from(!ours.passed);
                outcomes.insert(std::mem::discriminant(&ours.outcome));
            }
        }
        assert!(failed > 0 && failed < 2 * cases.len(), "{file}: the cases both pass and fail ({failed})");
    }
    assert_eq!(outcomes.len(), 5, "found, interpolated, missing, slower on a smaller batch, insufficient");
}
