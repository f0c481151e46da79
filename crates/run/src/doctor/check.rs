//! The verdict of every check of `mlb doctor`, its file and its lines.

use crate::check::{Check, Status};
use mlb_present::{Body, Cell, Document, Mark};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The verdict's file name in the output folder.
pub const FILE: &str = mlb_record::contract::VERDICT_FILE;

/// Every check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// In the order they ran.
    pub checks: Vec<Check>,
    /// The vendors' diagnostics run (`mlb doctor --diag`), every test's
    /// result as reported.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::gpu::Diagnostic>,
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

    /// The checks as a document: one row per check, its status marked,
    /// what was found and the fix.
    pub fn document(&self) -> Document {
        let rows = self
            .checks
            .iter()
            .map(|c| {
                let status = match c.status {
                    Status::Pass => Cell::marked("pass", Mark::Pass),
                    Status::Warn => Cell::marked("warn", Mark::Warn),
                    Status::Fail => Cell::marked("FAIL", Mark::Fail),
                };
                vec![c.name.as_str().into(), status, c.found.as_str().into(), c.fix.as_str().into()]
            })
            .collect();
        let mut document = Document::new("mlb doctor");
        document.push("Checks", Body::table(["check", "status", "found", "fix"], rows));
        document
    }

    /// Writes the verdict as [`FILE`] in `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let value = serde_json::to_value(self).expect("a verdict serialises");
        mlb_record::contract::record::write_atomic(dir, FILE, &value)
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
