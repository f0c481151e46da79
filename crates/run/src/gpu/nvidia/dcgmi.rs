//! NVIDIA DCGM's diagnostics: `dcgmi diag -r LEVEL -j` and its JSON, whose
//! `test_categories[].tests[].results[]` hold each test's status per GPU
//! (`gpu_id` / `gpu_ids` in DCGM 3, `entity_id` in DCGM 4), with `info`
//! and `warnings`.

use crate::gpu::diagnostic::{said, Diagnostic, TestResult};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The tool's name on `PATH`.
pub const TOOL: &str = "dcgmi";

/// Runs `tool diag -r LEVEL -j` and reads every test's result.
pub fn run(tool: &Path, level: u8) -> Diagnostic {
    let command = format!("{} diag -r {level} -j", tool.display());
    let mut diagnostic = Diagnostic { tool: TOOL.into(), command, exit_status: None, tests: Vec::new(), error: None };
    match Command::new(tool).args(["diag", "-r", &level.to_string(), "-j"]).output() {
        Err(e) => diagnostic.error = Some(format!("cannot run it: {e}")),
        Ok(out) => {
            diagnostic.exit_status = out.status.code();
            let stdout = String::from_utf8_lossy(&out.stdout);
            match serde_json::from_str::<Value>(&stdout) {
                Ok(json) => diagnostic.tests = tests(&json),
                Err(e) => diagnostic.error = Some(format!("its output is not JSON ({e})")),
            }
            if diagnostic.tests.is_empty() {
                diagnostic.error = Some(said(diagnostic.error.take(), &out));
            }
        }
    }
    diagnostic
}

/// Every result of every test of `dcgmi diag -j`'s output.
pub fn tests(output: &Value) -> Vec<TestResult> {
    let root = output.get("DCGM GPU Diagnostic").unwrap_or(output);
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let mut found = Vec::new();
    for category in root["test_categories"].as_array().into_iter().flatten() {
        let category_name = text(&category["category"]).unwrap_or_default();
        for test in category["tests"].as_array().into_iter().flatten() {
            let name = text(&test["name"]).unwrap_or_else(|| "unnamed test".into());
            for result in test["results"].as_array().into_iter().flatten() {
                let gpu = ["gpu_id", "gpu_ids", "entity_id"].iter().find_map(|k| text(&result[*k]));
                let warnings = result["warnings"].as_array().into_iter().flatten();
                let mut info: Vec<String> = text(&result["info"]).into_iter().collect();
                info.extend(warnings.filter_map(|w| text(&w["warning"]).or_else(|| text(w))));
                found.push(TestResult {
                    category: category_name.clone(),
                    name: name.clone(),
                    gpu,
                    status: text(&result["status"]).unwrap_or_else(|| "unknown".into()),
                    info: info.join("; "),
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

    /// `dcgmi diag -j`'s output of a run where GPU 1's memory test failed.
    pub(crate) fn one_failed() -> Value {
        json!({"DCGM GPU Diagnostic": {"test_categories": [
            {"category": "Deployment", "tests": [{"name": "Denylist", "results": [{"status": "Pass"}]}]},
            {"category": "Hardware", "tests": [{"name": "GPU Memory", "results": [
                {"gpu_id": "0", "status": "Pass"},
                {"gpu_id": "1", "status": "Fail", "warnings": [{"warning": "DBE errors", "error_id": 12}]}
            ]}]},
            {"category": "Integration", "tests": [{"name": "PCIe", "results": [{"entity_id": 0, "status": "Skip"}]}]}
        ]}, "version": "3.3.5"})
    }

    #[test]
    fn every_result_is_kept_with_its_gpu_and_warnings() {
        let found = tests(&one_failed());
        let got: Vec<(&str, Option<&str>, &str)> =
            found.iter().map(|t| (t.name.as_str(), t.gpu.as_deref(), t.status.as_str())).collect();
        let memory = "GPU Memory";
        assert_eq!(
            got,
            [
                ("Denylist", None, "Pass"),
                (memory, Some("0"), "Pass"),
                (memory, Some("1"), "Fail"),
                ("PCIe", Some("0"), "Skip")
            ]
        );
        assert_eq!(found[2].info, "DBE errors");
        assert!(tests(&json!({"error": "host engine not running"})).is_empty());
    }
}
