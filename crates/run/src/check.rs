//! One check of a host's fitness to measure on and how it came out: made
//! by the doctor's host checks and by each GPU vendor's checks, gathered
//! into the doctor's verdict. It imports nothing of the crate, so that the
//! doctor and the vendors both build on it.

use serde::{Deserialize, Serialize};

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
