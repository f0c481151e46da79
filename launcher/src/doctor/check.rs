//! One check's result and the verdict of all of them.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The verdict's file name in the output folder.
pub const FILE: &str = "doctor.json";

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fit.
    Pass,
    /// Measurable, but the numbers may mislead.
    Warn,
    /// Unfit: `--strict-preflight` refuses to run.
    Fail,
}

/// One check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What was checked (`cgroups`, `gpu0 processes`).
    pub name: String,
    /// How it came out.
    pub status: Status,
    /// What was found.
    pub found: String,
    /// What to do about it (empty when it passed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub fix: String,
}

impl Check {
    /// A passed check.
    pub fn pass(name: impl Into<String>, found: impl Into<String>) -> Check {
        Check { name: name.into(), status: Status::Pass, found: found.into(), fix: String::new() }
    }

    /// A check that did not pass, with its fix.
    pub fn not(status: Status, name: impl Into<String>, found: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { name: name.into(), status, found: found.into(), fix: fix.into() }
    }
}

/// Every check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// In the order they ran.
    pub checks: Vec<Check>,
}

impl Verdict {
    /// The checks that failed.
    pub fn failed(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.status == Status::Fail)
    }

    /// The checks that did not pass.
    pub fn problems(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.status != Status::Pass)
    }

    /// One line per check: `pass  cgroups: found (fix: ...)`.
    pub fn render(&self) -> String {
        self.checks.iter().map(|c| format!("{}\n", line(c))).collect()
    }

    /// Writes the verdict as [`FILE`] in `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let value = serde_json::to_value(self).expect("a verdict serialises");
        crate::record::write_atomic(dir, FILE, &value)
    }
}

/// One check as a line.
pub fn line(c: &Check) -> String {
    let status = match c.status {
        Status::Pass => "pass",
        Status::Warn => "warn",
        Status::Fail => "FAIL",
    };
    if c.fix.is_empty() {
        format!("{status}  {}: {}", c.name, c.found)
    } else {
        format!("{status}  {}: {}; fix: {}", c.name, c.found, c.fix)
    }
}
