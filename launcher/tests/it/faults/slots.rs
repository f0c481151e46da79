//! Two slots of spin under real cgroups (root tier): its instances
//! killed, frozen (the cgroup freezer), stopped and slowed (a CFS quota) at
//! their time, and the `faults` block each report ends with. spin sleeps
//! 10 ms a step, so a step never runs faster than that whatever the load:
//! the bounds below hold on a busy machine.

use super::{faults, launches};
use crate::common::launcher::Launches;
use crate::common::{reports, text};
use serde_json::Value;
use std::process::Output;

/// spin items a step (its `size`, 64 by default) and the fewest
/// milliseconds a step takes (its `sleep_ms`).
const ITEMS_PER_STEP: u64 = 64;
const STEP_MS: u64 = 10;
/// Steps an observation.
const NUMBER: u64 = 10;

/// Runs `repeat` observations of spin on two slots with `extra` flags;
/// the output and the reports (by instance).
fn run(l: &Launches, repeat: u64, extra: &[&str]) -> (Output, Vec<(String, Value)>) {
    run_sized(l, repeat, 64, extra)
}

/// [`run`] with matrices of side `size`.
fn run_sized(l: &Launches, repeat: u64, size: u64, extra: &[&str]) -> (Output, Vec<(String, Value)>) {
    let jobs = l.jobs(&format!(
        r#"[{{"name": "s", "plugin": "spin", "args": {{"repeat": {repeat}, "number": {NUMBER}, "skip": 1, "sleep_ms": {STEP_MS}, "size": {size}}}, "cgroup": "student"}}]"#
    ));
    let out = l.command(&jobs, &l.out(), &[&["--devices", "2"], extra].concat()).output().unwrap();
    let mut reps = reports(&l.out());
    reps.sort_by_key(|(_, r)| r["jr_id"].as_str().unwrap_or_default().to_string());
    (out, reps)
}

#[test]
fn a_killed_instance_restarts_from_its_checkpoint_and_its_report_says_what_it_cost() {
    let Some(l) = launches("killed") else { return };
    let every = 0.5;
    let flags = ["--inject", "kill:slot=1@1.5s", "--restarts", "1", "--checkpoint-every", "0.5"];
    let (out, reps) = run(&l, 30, &flags);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("restart 1 of 1: instance 1 (device 1): crashed"), "{stderr}");
    assert_eq!(reps.len(), 2, "one report an instance, no failure record: {reps:?}");
    let block = faults(&reps, "1");
    assert_eq!(block, faults(&reps, "0"), "every report of the config holds the config's block");
    assert_eq!(block["injected"][0]["fault"], "kill:slot=1@1.5s");
    assert_eq!(block["injected"][0]["done"], "rank 1 killed (SIGKILL)");
    let restart = &block["restarts"][0];
    assert_eq!(restart["detected_by"], "supervisor", "{restart}");
    assert!(restart["detection_s"].as_f64().unwrap() < 1.0, "seen within a second: {restart}");
    assert_eq!(restart["instances"], serde_json::json!([1]), "only the failed instance: no group");
    let step = restart["restored_step"].as_u64().expect("a checkpoint was restored");
    assert!(step > 0 && step.is_multiple_of(NUMBER), "at an observation's end: {restart}");
    // Lost: what ran since the checkpoint, at most one interval and the
    // observation that ends it, at the fastest a step can run.
    let most = ((every * 1000.0) as u64 / STEP_MS + NUMBER) * ITEMS_PER_STEP;
    let lost = restart["items_lost"].as_u64().unwrap();
    assert!(lost <= most, "lost {lost} items, at most {most}: {restart}");
    assert!(restart["restart_s"].as_f64().is_some(), "the restarted instance said it resumed: {restart}");
    // The training ran whole once: every observation is in the report.
    let (_, r1) = &reps[1];
    assert_eq!(r1["train"]["count"], 29, "{}", r1["train"]);
    let goodput = &block["goodput"];
    assert_eq!(goodput["useful_items"].as_f64(), Some((2 * 30 * NUMBER * ITEMS_PER_STEP) as f64), "{goodput}");
    assert!(goodput["reference"]["ratio"].as_f64().unwrap() < 1.0, "the restart cost time: {goodput}");
    for kept in [".reference", "logs"] {
        assert!(l.out().join(kept).is_dir(), "{kept}");
    }
    assert!(!l.out().join(".checkpoints").exists(), "the checkpoints go with the config");
    let logs: Vec<String> = std::fs::read_dir(l.out().join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(logs.iter().any(|n| n.ends_with(".J1.2.log")), "the restart has a log of its own: {logs:?}");
}

#[test]
fn without_restarts_a_killed_instance_fails_cleanly() {
    let Some(l) = launches("unrestarted") else { return };
    let (out, reps) = run(&l, 20, &["--inject", "kill:rank=1@1s", "--no-reference"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("FAILED"), "{stdout}");
    let (_, failed) = reps.iter().find(|(n, _)| n.contains(".FAIL.")).expect("the launcher's failure record");
    assert_eq!(failed["failure"]["cause"], "crash", "{failed}");
    let block = faults(&reps, "0");
    assert_eq!(block["restarts"], serde_json::json!([]));
    assert!(block["goodput"]["reference"].is_null(), "--no-reference: {block}");
}

#[test]
fn a_frozen_slot_shows_as_a_gap_in_its_telemetry_and_lowers_the_goodput() {
    let Some(l) = launches("frozen") else { return };
    let (out, reps) = run(&l, 30, &["--inject", "freeze:slot=1@1s,for=2s"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let block = faults(&reps, "1");
    let injected = &block["injected"][0];
    assert_eq!(injected["done"], "rank 1: slot 1 frozen, 1 processes", "{injected}");
    let held = injected["until_s"].as_f64().unwrap() - injected["at_s"].as_f64().unwrap();
    assert!(held >= 2.0, "thawed after its 2 s: {injected}");
    // Slot 1's CPU time stops for the freeze: a run of points of its
    // timeline at no CPU time at all at least 1.5 s long; slot 0's, which
    // computes a little every 10 ms, has none.
    let idle = |jr: &str| {
        let (_, r) = reps.iter().find(|(_, r)| r["jr_id"] == jr).unwrap();
        let timeline = &r["telemetry"]["timeline"];
        let (t, busy) = (timeline["t"].as_array().unwrap(), timeline["cpu_busy_cores"].as_array().unwrap());
        let (mut longest, mut since) = (0.0f64, None);
        for (t, b) in t.iter().zip(busy) {
            let t = t.as_f64().unwrap();
            match (b.as_f64(), since) {
                (Some(b), None) if b < 1e-9 => since = Some(t),
                (Some(b), Some(s)) if b >= 1e-9 => {
                    longest = longest.max(t - s);
                    since = None;
                }
                _ => {}
            }
        }
        longest
    };
    assert!(idle("1") >= 1.5, "slot 1 idle for {} s", idle("1"));
    assert!(idle("0") < 1.0, "slot 0 idle for {} s", idle("0"));
    let ratio = block["goodput"]["reference"]["ratio"].as_f64().unwrap();
    assert!(ratio < 0.9, "two slots held 2 s more for the same items: {}", block["goodput"]);
}

#[test]
fn a_stopped_and_a_slowed_slot_are_recorded_and_lifted() {
    let Some(l) = launches("stopslow") else { return };
    // Matrices of 128: a few percent of a CPU in a release build, more in a
    // debug one; above the 1% the quota leaves either way.
    let flags =
        ["--inject", "stop:slot=0@0.5s,for=1s", "--inject", "slow:slot=1@0.5s,cpu=0.01,for=1s", "--no-reference"];
    let (out, reps) = run_sized(&l, 20, 128, &flags);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let injected = faults(&reps, "0")["injected"].clone();
    let done: Vec<&str> = injected.as_array().unwrap().iter().map(|i| i["done"].as_str().unwrap()).collect();
    assert_eq!(done[0], "rank 0: slot 0 stopped (SIGSTOP), 1 processes", "{injected}");
    assert!(done[1].starts_with("rank 1: slot 1 capped at 0.01 of its "), "{injected}");
    assert!(injected.as_array().unwrap().iter().all(|i| i["until_s"].is_f64()), "both lifted: {injected}");
    let (_, slowed) = reps.iter().find(|(_, r)| r["jr_id"] == "1").unwrap();
    let throttled = slowed["telemetry"]["slot"]["cpu_throttled_fraction"].as_f64().unwrap_or(0.0);
    assert!(throttled > 0.0, "the quota throttled the slot: {}", slowed["telemetry"]["slot"]);
}

#[test]
fn a_fault_mlb_cannot_read_is_refused_with_the_accepted_form() {
    let l = Launches::new("badfault");
    let jobs = l.jobs(r#"[{"name": "s", "plugin": "spin", "args": {"repeat": 12}}]"#);
    for (fault, why) in [("melt:slot=1@1s", "unknown fault kind \"melt\""), ("kill:rank=1@1s,for=2s", "no for=")] {
        let out = l.command(&jobs, &l.out(), &["--inject", fault]).output().unwrap();
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why) && stderr.contains("accepted: KIND:TARGET@TIME"), "{stderr}");
    }
    assert!(!l.out().exists(), "nothing written");
}

#[test]
fn a_run_to_quality_restarts_from_its_start_and_its_mllog_files_carry_the_restart() {
    let Some(l) = launches("quality") else { return };
    // spin reaches its target after 144 steps of 16 items: about 1.5 s at 10 ms a step.
    let jobs = l.jobs(
        r#"[{"name": "q", "plugin": "spin", "cgroup": "student", "args": {"size": 16, "eval_every": 256, "sleep_ms": 10}}]"#,
    );
    let flags = ["--devices", "2", "--to-quality", "--inject", "kill:slot=1@0.8s", "--restarts", "1"];
    let out = l.command(&jobs, &l.out(), &flags).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let reps = reports(&l.out());
    let (_, r1) = reps.iter().find(|(_, r)| r["jr_id"] == "1").unwrap();
    assert_eq!(r1["quality"]["converged"], true, "{}", r1["quality"]);
    let restart = &r1["faults"]["restarts"][0];
    assert!(restart["restored_step"].is_null(), "no checkpoint on the clock: started over: {restart}");
    // Its time to quality with the fault, and without (the reference run's).
    let goodput = &r1["faults"]["goodput"];
    let (with, without) = (goodput["wall_s"].as_f64().unwrap(), goodput["reference"]["wall_s"].as_f64().unwrap());
    assert!(with > 0.8 && without > 0.0, "{goodput}");
    assert!(goodput["reference"]["ratio"].is_null(), "no items counted on the clock: {goodput}");
    let logs: Vec<String> = std::fs::read_dir(l.out())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".q.R0.D1.") && n.ends_with(".mllog"))
        .collect();
    assert_eq!(logs.len(), 2, "one MLLOG file an attempt: {logs:?}");
    let read = |name: &String| std::fs::read_to_string(l.out().join(name)).unwrap();
    let restarted = logs.iter().find(|n| read(n).contains(r#""key":"restart""#)).expect("the restarted attempt's");
    assert!(read(restarted).contains(r#""key":"restart","value":1"#), "{}", read(restarted));
    assert!(read(restarted).contains("run_stop"));
    let failed = logs.iter().find(|n| *n != restarted).unwrap();
    assert!(!read(failed).contains("run_stop"), "the failed attempt's file ends where it was killed");
}
