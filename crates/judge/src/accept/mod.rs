//! `mlb accept`: verdicts on a run. Rules (a YAML rules file, or the
//! default rules: the original score's pass criteria) are applied to the
//! figures `mlb report` computes, giving one [`Verdict`] per rule, bench,
//! GPU and node, with the measured value, the bound and the margin
//! (docs/accept.md).

mod apply;
mod error;
mod evaluate;
mod pattern;
pub mod record;
pub mod render;
mod rules;
mod verdict;

pub use error::AcceptError;
pub use evaluate::evaluate;
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
    /// Only the reports of this suite (`--suite NAME`, as `mlb report` selects them).
    pub suite: Option<String>,
}
