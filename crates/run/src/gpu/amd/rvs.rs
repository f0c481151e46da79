//! AMD's ROCm Validation Suite: `rvs -r LEVEL -j FILE`, whose JSON log
//! holds, per module (`gst`, `mem`, `peqt`...), per action of the suite's
//! configuration, the module's records; a record with a `pass` key
//! (`true`/`false`, or `1`/`0`) is a test's result for the GPU it names
//! (`gpu_index`, else `gpu_id`), its other keys (`target`, `dtype`,
//! `gflops`...) the test's figures. `rvs` exits 0 with a failed action, so
//! only the records are believed.

use crate::gpu::diagnostic::{said, Diagnostic, TestResult};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The tool's name on `PATH`.
pub const TOOL: &str = "rvs";

/// The keys of a record that are not the test's own figures.
const BOOKKEEPING: [&str; 7] = ["action", "module", "loglevelname", "pass", "gpu_id", "gpu_index", "loglevel"];

/// Runs `tool -r LEVEL -j FILE` (`FILE` a temporary file) and reads every
/// test's result from the JSON log.
pub fn run(tool: &Path, level: u8) -> Diagnostic {
    let folder = tempfile::tempdir();
    let log = folder.as_ref().map(|f| f.path().join("rvs.json")).unwrap_or_else(|_| "rvs.json".into());
    let command = format!("{} -r {level} -j {}", tool.display(), log.display());
    let mut diagnostic = Diagnostic { tool: TOOL.into(), command, exit_status: None, tests: Vec::new(), error: None };
    let out = match Command::new(tool).arg("-r").arg(level.to_string()).arg("-j").arg(&log).output() {
        Err(e) => {
            diagnostic.error = Some(format!("cannot run it: {e}"));
            return diagnostic;
        }
        Ok(out) => out,
    };
    diagnostic.exit_status = out.status.code();
    match std::fs::read_to_string(&log)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| format!("its JSON log is not JSON ({e})")))
    {
        Ok(json) => diagnostic.tests = tests(&json),
        Err(e) => diagnostic.error = Some(format!("no JSON log {}: {e}", log.display())),
    }
    if diagnostic.tests.is_empty() {
        diagnostic.error = Some(said(diagnostic.error.take(), &out));
    }
    diagnostic
}

/// Every test result of an `rvs -j` log: the records holding `pass`.
pub fn tests(log: &Value) -> Vec<TestResult> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let mut found = Vec::new();
    let modules = log.as_object().into_iter().flatten().filter(|(_, v)| v.is_object());
    for (module, actions) in modules {
        for (action, records) in actions.as_object().into_iter().flatten() {
            for record in records.as_array().into_iter().flatten() {
                let Some(pass) = text(&record["pass"]) else { continue };
                let status = match pass.trim() {
                    "true" | "1" => "Pass",
                    "false" | "0" => "Fail",
                    _ => "unknown",
                };
                let fields = record.as_object().into_iter().flatten();
                let info: Vec<String> = fields
                    .filter(|(k, _)| !BOOKKEEPING.contains(&k.as_str()))
                    .filter_map(|(k, v)| text(v).map(|v| format!("{k} {v}")))
                    .collect();
                found.push(TestResult {
                    category: module.clone(),
                    name: action.clone(),
                    gpu: text(&record["gpu_index"]).or_else(|| text(&record["gpu_id"])),
                    status: status.into(),
                    info: info.join(", "),
                });
            }
        }
    }
    found
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// The name of the `gst` action of [`one_failed`].
    pub(crate) const FP8: &str = "gst-1215Tflops-4K4K8K-rand-fp8";

    /// `rvs -j`'s log of a run where GPU 1 missed its `gst` target.
    pub(crate) fn one_failed() -> Value {
        json!({
            "version": "1.1.0",
            "gst": {FP8: [
                {"action": FP8, "module": "gst", "loglevelname": "RESULT",
                 "gpu_id": "28851", "gpu_index": "0", "target": "1215000", "dtype": "fp8", "gflops": "1301000", "pass": "true"},
                {"action": FP8, "module": "gst", "loglevelname": "INFO", "gpu_index": "1", "gflops": "402000"},
                {"action": FP8, "module": "gst", "loglevelname": "RESULT",
                 "gpu_id": "28852", "gpu_index": "1", "target": "1215000", "dtype": "fp8", "gflops": "402000", "pass": "false"}
            ]},
            "smqt": {"smqt-check": [{"gpu_id": "28851", "pass": "1"}]}
        })
    }

    #[test]
    fn every_record_with_a_verdict_is_kept() {
        let found = tests(&one_failed());
        let got: Vec<(&str, Option<&str>, &str)> =
            found.iter().map(|t| (t.name.as_str(), t.gpu.as_deref(), t.status.as_str())).collect();
        assert_eq!(got, [(FP8, Some("0"), "Pass"), (FP8, Some("1"), "Fail"), ("smqt-check", Some("28851"), "Pass")]);
        assert_eq!(found[1].info, "dtype fp8, gflops 402000, target 1215000");
    }
}
