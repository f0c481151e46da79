//! The vendors' own diagnostics, run by `mlb doctor --diag` (and `--deep`)
//! when their tool is installed: NVIDIA DCGM's `dcgmi diag -r LEVEL -j`
//! ([`dcgmi`]) and AMD's ROCm Validation Suite, `rvs -r LEVEL -j FILE`
//! ([`rvs`]). Every test's own result is kept (in `doctor.json` and
//! `system.json`) and becomes a check: a failed test fails the doctor even
//! when the tool exits 0, which `dcgmi` does with a failed test.

pub mod dcgmi;
pub mod rvs;

use crate::check::{Check, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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

impl Diagnostic {
    /// One check per test result, and a failed one when the tool gave none.
    pub fn checks(&self) -> Vec<Check> {
        if self.tests.is_empty() {
            let why = self.error.clone().unwrap_or_else(|| "no test result".into());
            let found = format!("`{}` gave no test result (exit status {:?}): {why}", self.command, self.exit_status);
            return vec![Check::not(Status::Fail, self.tool.clone(), found, self.fix())];
        }
        self.tests
            .iter()
            .map(|t| {
                let name = match &t.gpu {
                    Some(gpu) => format!("{} {} gpu{gpu}", self.tool, t.name),
                    None => format!("{} {}", self.tool, t.name),
                };
                let found = if t.info.is_empty() { t.status.clone() } else { format!("{}: {}", t.status, t.info) };
                match t.status() {
                    Status::Pass => Check::pass(name, found),
                    status => Check::not(status, name, found, format!("{} (test `{}`)", self.fix(), t.name)),
                }
            })
            .collect()
    }

    fn fix(&self) -> String {
        format!(
            "run `{}` by hand and see the vendor's guide to its tests; a GPU that fails needs service",
            self.command
        )
    }
}

/// The executable `name` in a folder of `PATH`, if any.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Every vendor diagnostic installed here, run at `level`.
pub fn run_all(level: u8) -> Vec<Diagnostic> {
    let dcgmi = on_path(dcgmi::TOOL).map(|tool| dcgmi::run(&tool, level));
    let rvs = on_path(rvs::TOOL).map(|tool| rvs::run(&tool, level));
    dcgmi.into_iter().chain(rvs).collect()
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
