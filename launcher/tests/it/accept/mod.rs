//! `mlb accept`: the real binary on report sets written as `mlb worker`
//! writes them (and on the original suite's generated sets): each rule kind
//! passing and failing, the exit statuses, refused rules files, the text
//! view within 100 columns and the other formats, and the default rules
//! against the original score.

mod bad_input;
mod default_rules;
mod kinds;
mod views;

use crate::common::records::{file_name, record, Run};
use mlb_record::contract::record::write_atomic;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `mlb accept ARGS`, with no target folder of the machine's user read.
pub fn accept(args: &[&str]) -> Output {
    accept_with(&[], args)
}

/// `mlb accept ARGS` with the environment variables `vars` set, with no
/// target folder of the machine's user read.
pub fn accept_with(vars: &[(&str, &str)], args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_mlb"))
        .arg("accept")
        .args(args)
        .env("XDG_CONFIG_HOME", home.path())
        .env("HOME", home.path())
        .envs(vars.iter().copied())
        .output()
        .unwrap()
}

/// stdout of `out`.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// stderr of `out`.
pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// The evaluation `mlb accept --format json ARGS` prints, with its exit status.
pub fn evaluation(args: &[&str]) -> (Value, i32) {
    let out = accept(&[args, &["--format", "json"]].concat());
    let code = out.status.code().unwrap();
    assert!(code == 0 || code == 1, "refused: {}", stderr(&out));
    (serde_json::from_slice(&out.stdout).unwrap(), code)
}

/// The verdicts of `evaluation` of `kind`, as (outcome, bench, gpu, node).
pub fn verdicts(evaluation: &Value, kind: &str) -> Vec<(String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    evaluation["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == kind)
        .map(|v| {
            (text(&v["outcome"]), text(&v["subject"]["bench"]), text(&v["subject"]["gpu"]), text(&v["subject"]["node"]))
        })
        .collect()
}

/// One instance of `bench` on device `vcd` of host `host` at `items_per_sec`.
pub struct Instance<'a> {
    pub bench: &'a str,
    pub run: u64,
    pub vcd: &'a str,
    pub host: &'a str,
    pub items_per_sec: f64,
    pub telemetry: Option<Value>,
}

impl Instance<'_> {
    /// Writes its report into `dir` as the worker would.
    pub fn write(&self, dir: &Path) -> PathBuf {
        let r = Run {
            suite: "fast",
            bench: self.bench,
            run: self.run,
            vcd: self.vcd,
            items_per_sec: self.items_per_sec,
            gpu: Some("H100"),
        };
        let mut report = record(&r);
        report["hostname"] = json!(self.host);
        if let Some(t) = &self.telemetry {
            report["telemetry"] = t.clone();
        }
        // Two hosts may write the same run of the same device: a folder each.
        let folder = dir.join(self.host);
        std::fs::create_dir_all(&folder).unwrap();
        write_atomic(&folder, &file_name(&r), &report).unwrap()
    }
}

/// A telemetry block: energy per item, the throttled share, a degraded
/// link, XID events.
pub fn telemetry(joules_per_item: f64, throttled: f64, degraded: bool, xid: f64) -> Value {
    json!({"sample_hz": 10.0, "samples": 50, "window_seconds": 5.0, "items": 500,
        "energy": {"joules": joules_per_item * 500.0, "joules_per_item": joules_per_item, "source": "gpu"},
        "gpus": [{"device": "0", "throttled_fraction": throttled, "degraded_link": degraded,
            "totals": {"xid_events": xid}}],
        "slot": {"cpu_throttled_fraction": null}, "throttled": throttled > 0.01, "degraded_link": degraded})
}

/// `values[slot]` runs of `bench` on one host, a device per slot, 3 runs
/// each at the slot's value (±1%).
pub fn slots(dir: &Path, bench: &str, host: &str, values: &[f64]) {
    for (slot, v) in values.iter().enumerate() {
        let vcd = slot.to_string();
        for (i, f) in [0.99, 1.0, 1.01].iter().enumerate() {
            let run = (slot * 3 + i) as u64;
            Instance { bench, run, vcd: &vcd, host, items_per_sec: v * f, telemetry: None }.write(dir);
        }
    }
}

/// Writes the rules file `text` into `dir`.
pub fn rules(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("rules.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A target table in `dir`.
pub fn targets(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("targets.csv");
    std::fs::write(&path, text).unwrap();
    path
}
