//! The libtorch plugin under faults (torch tier: its release build): a DDP
//! group of convnet_ddp on two cgroup slots, a rank killed or frozen and
//! the group restarted from its checkpoints; gpt in deterministic mode,
//! killed and restored, ending on the bits of the reference run without
//! faults.

use super::faults;
use crate::common::launcher::{root_or_skip, Launches};
use crate::common::{reports, text, torch_plugin_dir};
use crate::deterministic::fingerprints;
use serde_json::Value;
use std::process::Output;
use std::time::{Duration, Instant};

/// Launches of the libtorch plugin for the test `name`, or none.
fn launches(name: &str) -> Option<Launches> {
    root_or_skip("a fault on a DDP group")
        .then(|| Launches::with_plugins(name, torch_plugin_dir("the faults hit the libtorch plugin's workloads")))
}

/// A small ResNet-18 as a DDP group of two ranks, each collective bounded
/// by `timeout` seconds: `repeat` steps.
fn ddp_jobs(l: &Launches, repeat: u64, timeout: f64) -> std::path::PathBuf {
    l.jobs(&format!(
        r#"[{{"name": "ddp", "plugin": "convnet_ddp", "group": "ddp",
              "args": {{"repeat": {repeat}, "number": 1, "skip": 1, "batch_size": 2, "arch": "resnet18", "image_size": 32,
                        "classes": 10, "workers": 0, "frozen_bn": true, "timeout": {timeout}}}}}]"#
    ))
}

/// Runs `jobs` on two slots with `extra`: the output, how long it took,
/// the reports by rank.
fn run(l: &Launches, jobs: &std::path::Path, extra: &[&str]) -> (Output, Duration, Vec<(String, Value)>) {
    let started = Instant::now();
    let out = l.command(jobs, &l.out(), &[&["--devices", "2"], extra].concat()).output().unwrap();
    let took = started.elapsed();
    let mut reps = reports(&l.out());
    reps.sort_by_key(|(_, r)| r["jr_id"].as_str().unwrap_or_default().to_string());
    (out, took, reps)
}

#[test]
fn a_killed_rank_restarts_its_group_from_the_checkpoint_both_ranks_hold() {
    let Some(l) = launches("ddpkill") else { return };
    let every = 1.0;
    let jobs = ddp_jobs(&l, 300, 30.0);
    let flags = ["--inject", "kill:rank=1@5s", "--restarts", "1", "--checkpoint-every", "1"];
    let (out, _, reps) = run(&l, &jobs, &flags);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(reps.len(), 2, "{reps:?}");
    let block = faults(&reps, "1");
    let restart = &block["restarts"][0];
    assert_eq!(restart["instances"], serde_json::json!([0, 1]), "the whole group: {restart}");
    assert_eq!(restart["detected_by"], "supervisor", "{restart}");
    assert!(restart["detection_s"].as_f64().unwrap() < 1.0, "{restart}");
    assert!(restart["restored_step"].as_u64().unwrap() > 0, "{restart}");
    assert!(restart["restart_s"].as_f64().is_some(), "{restart}");
    // A checkpoint interval and an observation a rank, at the fastest rate
    // an observation of the reference run had; two intervals when the
    // ranks' last checkpoints straddle a period's edge and the group
    // restores the one before (docs/faults.md).
    let reference = reports(&l.out().join(".reference"));
    let fastest = reference.iter().map(|(_, r)| r["train_item"]["max"].as_f64().unwrap()).fold(0.0, f64::max);
    let slowest = reference.iter().map(|(_, r)| r["train"]["max"].as_f64().unwrap()).fold(0.0, f64::max);
    let most = 2.0 * fastest * (2.0 * every + 2.0 * slowest);
    let lost = restart["items_lost"].as_f64().unwrap();
    // None at all when the kill came in the observation after a checkpoint.
    assert!(lost <= most, "lost {lost} items, at most {most}: {restart}");
    let goodput = &block["goodput"];
    assert!(goodput["reference"]["ratio"].as_f64().unwrap() < 1.0, "{goodput}");
    for (name, r) in &reps {
        assert_eq!(r["train"]["count"], 299, "{name}: the whole training");
        assert_eq!(r["ddp"]["world_size"], 2, "{name}");
    }
}

#[test]
fn a_frozen_rank_is_found_by_the_group_timeout_and_the_group_restarts() {
    let Some(l) = launches("ddpfreeze") else { return };
    let timeout = 5.0;
    let jobs = ddp_jobs(&l, 200, timeout);
    let flags = ["--inject", "freeze:rank=1@5s", "--restarts", "1", "--checkpoint-every", "1", "--no-reference"];
    let (out, took, reps) = run(&l, &jobs, &flags);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let restart = &faults(&reps, "0")["restarts"][0];
    assert_eq!(restart["detected_by"], "group", "rank 0's collective saw it: {restart}");
    let detection = restart["detection_s"].as_f64().unwrap();
    assert!((timeout - 1.0..timeout + 15.0).contains(&detection), "about the group's {timeout} s: {restart}");
    assert!(restart["failed"].as_str().unwrap().contains("instance 0"), "{restart}");
    assert!(took < Duration::from_secs(180), "nothing hung: {took:?}");
}

#[test]
fn without_restarts_a_killed_rank_fails_its_group_cleanly() {
    let Some(l) = launches("ddpnorestart") else { return };
    let jobs = ddp_jobs(&l, 300, 60.0);
    let (out, took, reps) = run(&l, &jobs, &["--inject", "kill:rank=1@5s", "--no-reference"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let cause = |jr: &str| {
        let (_, r) = reps.iter().find(|(_, r)| r["jr_id"] == jr && r["failure"].is_object()).expect("a failure record");
        (r["failure"]["cause"].as_str().unwrap().to_string(), r["failure"]["message"].as_str().unwrap().to_string())
    };
    assert_eq!(cause("1").0, "crash");
    let (zero, message) = cause("0");
    assert_eq!(zero, "error", "rank 0 failed on its own: {message}");
    assert!(message.contains("all-reduce"), "{message}");
    assert!(took < Duration::from_secs(60), "the peer failed at once, not after a timeout: {took:?}");
}

#[test]
fn a_killed_and_restored_gpt_ends_on_the_reference_runs_bits() {
    let Some(l) = launches("gptrestore") else { return };
    let jobs = l.jobs(
        r#"[{"name": "gpt_det", "plugin": "gpt", "cgroup": "student",
             "args": {"repeat": 600, "number": 5, "skip": 1, "size": "tiny", "seq_len": 32, "vocab": 256, "batch_size": 2,
                      "precision": "fp32", "warmup": 2, "deterministic": true, "fingerprint_every": 5}}]"#,
    );
    let flags = ["--devices", "1", "--inject", "kill:slot=0@3s", "--restarts", "1", "--checkpoint-every", "0.5"];
    let out = l.command(&jobs, &l.out(), &flags).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let (_, faulted) = &reports(&l.out())[0];
    let (_, reference) = &reports(&l.out().join(".reference"))[0];
    let restart = &faulted["faults"]["restarts"][0];
    assert!(restart.is_object(), "killed before its end: {}", faulted["faults"]);
    assert!(restart["restored_step"].as_u64().unwrap() > 0, "restored from a checkpoint: {restart}");
    let (got, want) = (fingerprints(faulted), fingerprints(reference));
    assert_eq!(got.len(), 600, "every fingerprint of the training: {got:?}");
    assert_eq!(got, want, "the loss, gradient norm and parameters of every fingerprint, bit for bit");
    let bits = |r: &Value| {
        r["batch_loss"].as_array().unwrap().iter().map(|l| l.as_f64().unwrap().to_bits()).collect::<Vec<_>>()
    };
    assert_eq!(bits(faulted), bits(reference), "the last step losses, bit for bit");
}
