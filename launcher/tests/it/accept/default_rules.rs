//! Without a rules file, the original score's pass criteria: on the
//! original's generated report sets each bench passes the default rules
//! exactly when it passes the score's `perf_pass` and `sd%_pass`, and the
//! failures verdict is the score's BF.

use super::{accept, evaluation};
use crate::report_gen;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

/// Per bench whether `mlb report` gives it perf_pass and sd_pass, and BF,
/// on `dir` (the original's suite, as tests/it/report_compat.rs reads it).
fn score(dir: &std::path::Path) -> (BTreeMap<String, bool>, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--suite", "baselines", "--gpu-model", "V100", "--format", "json", "--reports"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let passes = report["benches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["bench"].as_str().unwrap().to_string(), b["perf_pass"] == true && b["sd_pass"] == true))
        .collect();
    (passes, report["score"]["bf"] == 1)
}

/// Per bench, whether every default verdict on it passed; and the failures verdict.
fn accepted(dir: &std::path::Path) -> (BTreeMap<String, bool>, bool, i32) {
    let (e, code) = evaluation(&["--suite", "baselines", "--gpu-model", "V100", "--reports", dir.to_str().unwrap()]);
    assert_eq!((e["rules"].as_str(), e["targets"].as_str()), (Some("default rules"), Some("built-in V100")));
    let mut benches: BTreeMap<String, bool> = BTreeMap::new();
    let mut bf = None;
    for v in e["verdicts"].as_array().unwrap() {
        assert_eq!(v["origin"]["from"], "default");
        let pass = v["outcome"] == "pass";
        match v["subject"]["bench"].as_str() {
            Some(bench) => *benches.entry(bench.to_string()).or_insert(true) &= pass,
            None => bf = Some(pass),
        }
    }
    (benches, bf.expect("a failures verdict"), code)
}

#[test]
fn the_default_rules_say_what_the_original_score_says() {
    for (entries, null_names, seed) in [(2_000, 3, 31), (2_000, 40, 32), (600, 0, 33)] {
        let dir = tempfile::tempdir().unwrap();
        report_gen::write_set(dir.path(), entries, null_names, seed);
        let (passes, bf) = score(dir.path());
        let (benches, failures, code) = accepted(dir.path());
        assert_eq!(benches, passes, "seed {seed}");
        assert_eq!(failures, bf, "seed {seed}");
        let all = bf && passes.values().all(|p| *p);
        assert_eq!(code, if all { 0 } else { 1 });
        assert!(passes.values().any(|p| *p) && passes.values().any(|p| !*p), "both outcomes occur: {passes:?}");
    }
}

#[test]
fn the_default_rules_without_a_target_table_are_refused_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    report_gen::write_set(dir.path(), 300, 0, 34);
    let out = accept(&["--reports", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(said.contains("compare each bench with a target table"), "{said}");
    assert!(said.contains("--targets FILE or --gpu-model NAME"), "{said}");
}

#[test]
fn the_original_s_folders_have_no_telemetry_or_node_they_are_not_measured() {
    let (dir, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    report_gen::write_set(dir.path(), 600, 0, 35);
    let r = super::rules(
        etc.path(),
        "rules:\n  - kind: per_node\n    min: 0.9\n  - kind: throttled\n    max: 0.01\n  - kind: xid\n  \
         - kind: pcie_link\n  - kind: energy\n    max: 10\n  - kind: per_gpu\n    min: 0.01\n",
    );
    let (e, code) = evaluation(&[
        "--suite",
        "baselines",
        "--rules",
        r.to_str().unwrap(),
        "--reports",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    for kind in ["per_node", "throttled", "xid", "pcie_link", "energy"] {
        let found = super::verdicts(&e, kind);
        assert!(!found.is_empty() && found.iter().all(|v| v.0 == "not_measured"), "{kind}: {found:?}");
    }
    // The per-GPU figures are in the original's reports (their `vcd`).
    let gpus = super::verdicts(&e, "per_gpu");
    assert!(!gpus.is_empty() && gpus.iter().all(|v| v.0 == "pass"), "{gpus:?}");
}
