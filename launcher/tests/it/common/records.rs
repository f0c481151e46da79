//! Report files for the report tool's tests and benchmark, written the way
//! `mlb worker` writes them (same keys, naming and atomic write).

use chrono::{TimeZone, Utc};
use mlb::worker::heap::HeapPolicy;
use mlb::worker::provenance;
use mlb_record::contract::record::{timestamp, unique_id, write_atomic, Identity};
use mlb_record::contract::{PluginBuild, Report};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// One successful instance: `suite`, `bench`, run `run`, device `vcd`, with
/// `items_per_sec` throughput, optionally a device name.
pub struct Run<'a> {
    pub suite: &'a str,
    pub bench: &'a str,
    pub run: u64,
    pub vcd: &'a str,
    pub items_per_sec: f64,
    pub gpu: Option<&'a str>,
}

/// The record `mlb worker` would write for `r` (100 batch losses, times,
/// provenance...).
pub fn record(r: &Run) -> Value {
    let mut args: Map<String, Value> =
        json!({"batch_size": 64, "lr": 0.1, "repeat": 30, "number": 5}).as_object().unwrap().clone();
    let unique_id = unique_id(r.bench, &args);
    args.extend(json!({"workers": 4, "seed": 0, "cuda": true, "skip": 10}).as_object().unwrap().clone());
    if let Some(gpu) = r.gpu {
        args.insert("gpu".into(), gpu.into());
    }
    let items = 320.0;
    let t = items / r.items_per_sec;
    let train = mlb_figures::timing::summary(&[t * 0.98, t, t * 1.02]).unwrap();
    let at = timestamp(Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
    let plugin = PluginBuild { name: r.bench.into(), version: "0.1.0".into(), build: "0123456789ab".into() };
    let losses: Vec<f64> = (1..=100).map(|i| 1.0 / (i as f64 + 0.5)).collect();
    Report {
        args,
        completed: true,
        start_time: Some(at.clone()),
        end_time: Some(at),
        unique_id: Some(unique_id),
        version: Some(format!("{} 0.1.0 (build 0123456789ab)", r.bench)),
        hostname: Some("bench-host".into()),
        devices: Some(r.vcd.split(',').count()),
        cpu_cores: Some(4),
        items: Some(items),
        train_item: Some(train.throughput(items)),
        train: Some(train),
        epoch_loss: Some(losses[..10].to_vec()),
        batch_loss: Some(losses),
        metrics: Some(json!({})),
        provenance: Some(provenance::collect(plugin, 4, HeapPolicy::KeepFreed)),
        ..Report::new(&identity(r))
    }
    .to_value()
}

fn identity(r: &Run) -> Identity {
    Identity { suite: r.suite.into(), name: r.bench.into(), run_id: r.run, jr_id: 0, vcd: r.vcd.into() }
}

/// The file name the worker would give `r`'s record.
pub fn file_name(r: &Run) -> String {
    identity(r).file_name(false, Utc.timestamp_opt(1_700_000_000 + r.run as i64, 0).unwrap())
}

/// Writes `r`'s record into `dir` as the worker does (atomically).
pub fn write_report(dir: &Path, r: &Run) -> PathBuf {
    write_atomic(dir, &file_name(r), &record(r)).unwrap()
}

/// The record of `r` on `host` from a config asking for a deterministic
/// run, with the `determinism` block `mlb worker` writes: the parameters
/// hash to `prints` (a letter per fingerprint, every 10 steps from step
/// 10), on the device `Xeon` with one stack.
pub fn deterministic_record(r: &Run, host: &str, prints: &str) -> Value {
    let mut report = record(r);
    report["hostname"] = json!(host);
    report["deterministic"] = json!(true);
    let fingerprints: Vec<Value> = prints
        .chars()
        .enumerate()
        .map(|(i, c)| json!({"step": 10 * (i + 1), "loss": "3fb999999999999a", "params": c.to_string().repeat(32)}))
        .collect();
    report["determinism"] = json!({"every": 10, "device": "Xeon",
        "stack": {"plugin": "spin 0.1.0 (build 0123456789ab)", "threads": "1"}, "fingerprints": fingerprints});
    report
}
