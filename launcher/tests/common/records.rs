//! Report files for the report tool's tests and benchmark, written the way
//! `mlb worker` writes them (same keys, naming and atomic write).

use chrono::{TimeZone, Utc};
use mlb::record::{timestamp, unique_id, write_atomic, Identity};
use mlb::worker::heap::HeapPolicy;
use mlb::worker::provenance;
use mlb::worker::stats::Summary;
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
    let identity = identity(r);
    let args: Map<String, Value> =
        json!({"batch_size": 64, "lr": 0.1, "repeat": 30, "number": 5}).as_object().unwrap().clone();
    let items = 320.0;
    let t = items / r.items_per_sec;
    let train = Summary::of(&[t * 0.98, t, t * 1.02]).unwrap();
    let mut m = args.clone();
    m.extend(identity.fields());
    let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    m.insert("start_time".into(), timestamp(at).into());
    m.insert("end_time".into(), timestamp(at).into());
    m.insert("unique_id".into(), unique_id(r.bench, &args).into());
    m.insert("version".into(), format!("{} 0.1.0 (build 0123456789ab)", r.bench).into());
    m.insert("hostname".into(), "bench-host".into());
    m.insert("provenance".into(), provenance::collect(r.bench, "0.1.0", "0123456789ab", 4, HeapPolicy::KeepFreed));
    m.insert("workers".into(), 4.into());
    m.insert("seed".into(), 0.into());
    m.insert("cuda".into(), true.into());
    m.insert("devices".into(), r.vcd.split(',').count().into());
    m.insert("skip".into(), 10.into());
    m.insert("cpu_cores".into(), 4.into());
    m.insert("completed".into(), true.into());
    m.insert("items".into(), json!(items));
    m.insert("train".into(), json!(train));
    m.insert("train_item".into(), json!(train.throughput(items)));
    let losses: Vec<f64> = (1..=100).map(|i| 1.0 / (i as f64 + 0.5)).collect();
    m.insert("batch_loss".into(), json!(losses));
    m.insert("epoch_loss".into(), json!(losses[..10]));
    m.insert("metrics".into(), json!({}));
    if let Some(gpu) = r.gpu {
        m.insert("gpu".into(), gpu.into());
    }
    Value::Object(m)
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
