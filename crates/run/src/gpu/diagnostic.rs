//! What a vendor's own diagnostic tool found, each test's result per GPU as
//! the tool reported it: NVIDIA DCGM's `dcgmi diag` ([`super::nvidia::dcgmi`])
//! and AMD's ROCm Validation Suite, `rvs` ([`super::amd::rvs`]). The doctor
//! runs the tools installed and makes each result a check (`doctor::diag`).

use crate::check::Status;
use serde::{Deserialize, Serialize};

/// One run of a vendor's diagnostic tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The tool (`dcgmi`).
    pub tool: String,
    /// The command line run.
    pub command: String,
    /// Its exit status (`None`: killed by a signal).
    pub exit_status: Option<i32>,
    /// Every test's result per GPU, as the tool reported it.
    pub tests: Vec<TestResult>,
    /// What went wrong when no test result could be read (the tool's own
    /// error output, or why its output was not understood).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// The tool's category of the test (`Hardware`, `Integration`...).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub category: String,
    /// The test's name (`Memory`, `PCIe`, `Diagnostic`...).
    pub name: String,
    /// The GPU(s) the result is for, as the tool names them (`0`, `0,1`);
    /// `None` for a test of the whole host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// The status as reported (`Pass`, `Fail`, `Warn`, `Skip`...).
    pub status: String,
    /// The tool's details and warnings, joined.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub info: String,
}

impl TestResult {
    /// The doctor's status of this result: `Fail` and `Warn` as they are;
    /// passed, skipped and not run tests pass.
    pub fn status(&self) -> Status {
        match self.status.trim().to_ascii_lowercase().as_str() {
            "fail" | "failed" | "error" => Status::Fail,
            "warn" | "warning" => Status::Warn,
            _ => Status::Pass,
        }
    }
}

/// What a tool that gave no test result said: `error` (why its output was
/// not understood), then its error output, else the start of its output.
pub fn said(error: Option<String>, out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let said = if stderr.is_empty() {
        String::from_utf8_lossy(&out.stdout).trim().chars().take(500).collect()
    } else {
        stderr
    };
    error.map_or(said.clone(), |e| format!("{e}; {said}"))
}
