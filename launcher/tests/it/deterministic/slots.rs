//! spin in two real cgroup slots, deterministic: the slots and two runs
//! compute the same bits; a bit flipped in slot 1 is named (root tier).

use super::{accept, fingerprints, first_difference, identical_rules, report};
use crate::common;
use common::launcher::{root_or_skip, Launches};
use serde_json::Value;
use std::path::Path;

/// Two slots of spin, fingerprinted every 10 steps over 40.
const JOBS: &str = r#"[{"name": "det", "plugin": "spin", "cgroup": "student",
  "args": {"size": 48, "repeat": 4, "number": 10, "skip": 1, "deterministic": true}}]"#;

/// Runs `JOBS` on two slots into `out` with `env`, checked to succeed; its
/// reports by slot (`vcd`).
fn run(l: &Launches, out: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let mut c = l.command(&l.jobs(JOBS), out, &["--devices", "2"]);
    c.envs(env.iter().copied());
    let done = c.output().unwrap();
    let (stdout, stderr) = common::text(&done);
    assert!(done.status.success(), "{stdout}\n{stderr}");
    let mut reports: Vec<Value> = common::reports(out).into_iter().map(|(_, r)| r).collect();
    reports.sort_by_key(|r| r["vcd"].as_str().unwrap().to_string());
    assert_eq!(reports.len(), 2, "{reports:?}");
    reports
}

#[test]
fn two_slots_and_two_runs_compute_the_same_bits_and_a_flipped_bit_is_named() {
    if !root_or_skip("deterministic runs in real cgroup slots") {
        return;
    }
    let l = Launches::new("deterministic");
    let first = run(&l, &l.dir().join("first"), &[]);
    for r in &first {
        assert_eq!(r["seed"], first[0]["seed"], "one seed for every instance");
        assert!(r["provenance"]["isolation"].as_str().unwrap().starts_with("cgroup"), "{r:#}");
        let block = &r["determinism"];
        assert_eq!((block["every"].as_u64(), block["stack"]["threads"].as_str()), (Some(10), Some("1")), "{block:#}");
        assert_eq!(fingerprints(r).iter().map(|f| f.0).collect::<Vec<_>>(), [10, 20, 30, 40]);
    }
    assert_eq!(first_difference(&first[0], &first[1]), None, "the slots agree");
    let again = run(&l, &l.dir().join("again"), &[]);
    assert_eq!(first_difference(&first[0], &again[0]), None, "the runs agree");

    let rules = identical_rules(l.dir());
    let (said, code) = accept(&l.dir().join("first"), &rules);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("2 instances on 1 node, bit-identical over 40 steps"), "{said}");

    // Slot 1 flips a bit after step 15: its fingerprints leave from step 20.
    let flipped_dir = l.dir().join("flipped");
    let flipped = run(&l, &flipped_dir, &[("MLB_INJECT", "flip_bit@15,slot=1")]);
    assert_eq!(first_difference(&first[0], &flipped[0]), None, "slot 0 computed as before");
    assert_eq!(first_difference(&first[1], &flipped[1]), Some(20), "slot 1 from the first fingerprint after 15");
    // Two slots that differ have no majority: the vote names the step, and
    // with a third instance (the clean run's slot 1) names the slot.
    let (said, code) = report(&flipped_dir);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("step 20"), "{said}");
    let (said, code) = accept(&flipped_dir, &rules);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("step 20"), "{said}");
    let clean_slot_1 = common::reports(&l.dir().join("first")).into_iter().find(|(_, r)| r["vcd"] == "1").unwrap().0;
    std::fs::copy(l.dir().join("first").join(&clean_slot_1), flipped_dir.join(&clean_slot_1)).unwrap();
    let (said, code) = accept(&flipped_dir, &rules);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("vcd 1") && said.contains("step 20"), "{said}");
}

#[test]
fn an_injection_the_worker_cannot_follow_fails_the_instance_naming_the_variable() {
    if !root_or_skip("deterministic runs in real cgroup slots") {
        return;
    }
    let l = Launches::new("badinject");
    let mut c = l.command(&l.jobs(JOBS), &l.out(), &["--devices", "2"]);
    let done = c.env("MLB_INJECT", "melt@3").output().unwrap();
    assert!(!done.status.success());
    for (_, r) in common::reports(&l.out()) {
        assert_eq!(r["failure"]["cause"], "config", "{r:#}");
        let message = r["failure"]["message"].as_str().unwrap();
        assert!(message.contains("MLB_INJECT=\"melt@3\": no fault is named `melt`"), "{message}");
    }
}
