//! Why `mlb burn` refused or failed before it gave its verdicts.

use super::reading::Unreadable;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use mlb_run::launch::LaunchError;
use std::path::PathBuf;

/// Why `mlb burn` gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum BurnError {
    /// The launch of the stress workloads refused or failed.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The output folder already holds reports, which the verdicts would mix in.
    #[error("the output folder {} already holds reports", path.display())]
    Used {
        /// The folder.
        path: PathBuf,
    },
    /// A file of the burn could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The launch left no report to judge.
    #[error("the burn left no report in {}", path.display())]
    NoReports {
        /// The output folder.
        path: PathBuf,
    },
    /// A report of the burn could not be read.
    #[error(transparent)]
    Reading(#[from] Unreadable),
}

impl Classify for BurnError {
    fn kind(&self) -> Kind {
        match self {
            BurnError::Launch(e) => e.kind(),
            BurnError::Used { .. } => Kind::Refused,
            BurnError::Write { .. } | BurnError::NoReports { .. } | BurnError::Reading(_) => Kind::Failed,
        }
    }
}

impl Fix for BurnError {
    fn fix(&self) -> Option<String> {
        match self {
            BurnError::Launch(e) => e.fix(),
            BurnError::Used { .. } => Some("pass a new --outdir, or empty this one".into()),
            BurnError::Write { .. } => Some("pass a writable --outdir".into()),
            BurnError::NoReports { .. } => {
                Some("see the launch's log above and the logs folder beside the reports".into())
            }
            BurnError::Reading(_) => None,
        }
    }
}
