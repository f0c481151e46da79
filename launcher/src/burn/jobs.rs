//! The jobs file a burn runs: gemm, then membw, each on every slot at once
//! (`cgroup: student`: one instance per slot, as the suite's single-GPU
//! jobs run), for the burn's duration.

use super::args::BurnArgs;
use serde_json::{json, Value};

/// The job name of gemm's bench, and its workload.
pub const GEMM: &str = "gemm";
/// The job name of membw's bench, and its workload.
pub const MEMBW: &str = "membw";
/// The suite of a burn's reports (the jobs file is `burn.json`).
pub const SUITE: &str = "burn";

/// The jobs file's text.
pub fn jobs(args: &BurnArgs) -> String {
    let (repeat, step_seconds) = args.steps();
    let counts = json!({"repeat": repeat, "number": 1, "skip": 1, "step_seconds": step_seconds});
    let with = |extra: Value| {
        let mut all = counts.as_object().cloned().unwrap_or_default();
        all.extend(extra.as_object().cloned().unwrap_or_default());
        Value::Object(all)
    };
    let jobs = json!([
        {"name": GEMM, "plugin": GEMM, "cgroup": "student", "args": with(json!({"precision": args.precision}))},
        {"name": MEMBW, "plugin": MEMBW, "cgroup": "student", "args": with(json!({}))},
    ]);
    serde_json::to_string_pretty(&jobs).expect("serialises")
}
