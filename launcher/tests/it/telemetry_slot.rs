//! The slot telemetry for real: `mlb --jobs` runs spin in a real cgroup slot
//! and the launcher's sampler reads the group's real counters. The workload
//! changes behaviour between warm-up and timed steps (busy, then idle), so
//! a block not scoped to the timed window shows the warm-up's CPU time.
//! Set `MLB_SKIP_CGROUP_TESTS=1` to skip it on a host without cgroups.

use crate::common;

use common::launcher::{root_or_skip, Launches};
use common::{reports, text};
use serde_json::Value;

#[test]
fn the_block_holds_the_timed_window_only() {
    if !root_or_skip("the real slot telemetry test") {
        return;
    }
    let l = Launches::new("telemetry");
    // Warm-up: 4 observations of 3 busy steps (size 200); timed: 4 of 3 idle
    // steps of 60 ms each.
    let jobs = l.jobs(
        r#"[{"name": "t", "plugin": "spin", "cgroup": "student",
             "args": {"repeat": 8, "skip": 4, "number": 3, "size": 200, "sleep_ms": 60, "idle_from": 13}}]"#,
    );
    let out = l.command(&jobs, &l.out(), &["--sample-hz", "50"]).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let all = reports(&l.out());
    let (name, report) = all.iter().find(|(n, _)| !n.contains("FAIL")).expect("a report");
    let t = &report["telemetry"];
    assert!(t.is_object(), "{name} has a telemetry block: {report:#}");

    // The window is the timed observations: their times, and the little
    // between them (a progress line, a sync).
    let train = &report["train"];
    let timed = train["avg"].as_f64().unwrap() * train["count"].as_f64().unwrap();
    let window = t["window_seconds"].as_f64().unwrap();
    assert!(window >= timed && window < timed + 0.1, "window {window} s, timed observations {timed} s");
    assert_eq!(t["items"], 4 * 3 * 200, "items of the timed observations");
    let samples = t["samples"].as_u64().unwrap();
    assert!(samples as f64 >= window * 50.0 * 0.5, "{samples} samples in {window} s at 50 Hz");

    // The timed steps sleep: the window holds next to no CPU time, while the
    // busy warm-up held plenty (a window reaching into it would show it).
    let slot = &t["slot"];
    let cpu_s = slot["totals"]["cpu_ns"].as_f64().expect("cpu_ns from cpuacct/cpu.stat") / 1e9;
    assert!(cpu_s < 0.15 * window, "{cpu_s} s of CPU in a {window} s window of sleeping steps: {slot:#}");
    let busy = &slot["stats"]["cpu_busy_cores"];
    assert!(busy["max"].as_f64().unwrap() < 0.6, "{busy}");
    let warm_up = report["train"]["min"].as_f64().unwrap();
    assert!(warm_up > 0.0);

    // The group's memory, page faults and the CPUs' frequency were read.
    assert!(slot["stats"]["memory_bytes"]["mean"].as_f64().unwrap() > 0.0, "{slot:#}");
    assert!(slot["stats"]["memory_peak_bytes"]["max"].as_f64().is_some(), "{slot:#}");
    assert!(slot["totals"]["page_faults"].as_f64().is_some(), "{slot:#}");
    assert!(slot["stats"]["cpu_mhz"]["mean"].as_f64().unwrap() > 0.0, "{slot:#}");
    assert_eq!(slot["cpu_throttled_fraction"], Value::Null, "no CPU quota, no CFS period");
    assert!(t["sources"]["slot"].as_str().unwrap().contains("/slot0"), "{}", t["sources"]);
    assert_eq!(t["throttled"], false);
    let timeline = &t["timeline"];
    let points = timeline["t"].as_array().unwrap().len();
    assert!(points > 0 && points <= 200 && timeline["memory_bytes"].as_array().unwrap().len() == points);
}

#[test]
fn no_sampling_no_block() {
    if !root_or_skip("the real slot telemetry test") {
        return;
    }
    let l = Launches::new("telemetryoff");
    let jobs = l.jobs(r#"[{"name": "t", "plugin": "spin", "cgroup": "student", "args": {"repeat": 3, "skip": 1, "number": 1, "size": 8}}]"#);
    let out = l.command(&jobs, &l.out(), &["--sample-hz", "0"]).output().unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    let all = reports(&l.out());
    assert!(all.iter().all(|(_, r)| r.get("telemetry").is_none()), "{all:?}");
}
