//! Deterministic runs end to end (docs/determinism.md): every instance of a
//! config with `deterministic: true` computes the same bits, the worker
//! records them, and `mlb report` and `mlb accept` vote. A bit flipped in
//! one instance (`MLB_INJECT`) is found and named with its slot or node and
//! the first fingerprint after it.
//!
//! - [`slots`]: spin in two real cgroup slots (root tier);
//! - [`cluster`]: spin on the two nodes of the Slurm test cluster (slurm tier);
//! - [`torch`]: convnet and gpt in cgroup slots and on the cluster (torch tier).

mod cluster;
mod slots;
mod torch;

use crate::common;
use serde_json::Value;
use std::path::Path;

/// The fingerprints of a report: `(step, loss, grad_norm, params)` texts.
pub fn fingerprints(report: &Value) -> Vec<(u64, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("-").to_string();
    report["determinism"]["fingerprints"]
        .as_array()
        .unwrap_or_else(|| panic!("no fingerprints in {report:#}"))
        .iter()
        .map(|f| (f["step"].as_u64().unwrap(), text(&f["loss"]), text(&f["grad_norm"]), text(&f["params"])))
        .collect()
}

/// The first step whose fingerprint differs between `a` and `b`.
pub fn first_difference(a: &Value, b: &Value) -> Option<u64> {
    fingerprints(a).into_iter().zip(fingerprints(b)).find(|(x, y)| x != y).map(|(x, _)| x.0)
}

/// The rules file of the `identical` rule, in `dir`.
pub fn identical_rules(dir: &Path) -> std::path::PathBuf {
    common::write(dir, "identical.yaml", "rules:\n  - kind: identical\n")
}

/// `mlb report --reports DIR` (text, plain) and its exit status.
pub fn report(dir: &Path) -> (String, i32) {
    let out = common::run(&["report", "--reports", dir.to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    (format!("{stdout}{stderr}"), out.status.code().unwrap_or(-1))
}

/// `mlb accept --reports DIR --rules (identical)`: its output and exit status.
pub fn accept(dir: &Path, rules: &Path) -> (String, i32) {
    let out = common::run(&["accept", "--reports", dir.to_str().unwrap(), "--rules", rules.to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    (format!("{stdout}{stderr}").split_whitespace().collect::<Vec<_>>().join(" "), out.status.code().unwrap_or(-1))
}
