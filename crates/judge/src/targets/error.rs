//! Errors of `mlb targets`.

use crate::report::ReportError;
use mlb_record::contract::record::refused;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// Why `mlb targets derive` wrote no table.
#[derive(Debug, thiserror::Error)]
pub enum TargetsError {
    /// The folder could not be read or holds no report.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The run cannot be a reference (failures, too few results, several
    /// GPU models) and `--force` was not given.
    #[error("cannot derive targets from {}: {}", reports.display(), reasons.join("; "))]
    Unfit {
        /// The reports folder.
        reports: PathBuf,
        /// Every problem found.
        reasons: Vec<String>,
    },
    /// The table could not be written.
    #[error("cannot write the target table {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for TargetsError {
    /// A run that cannot be a reference is refused before anything is
    /// written; a table that cannot be written fails.
    fn kind(&self) -> Kind {
        match self {
            TargetsError::Report(e) => e.kind(),
            TargetsError::Unfit { .. } => Kind::Refused,
            TargetsError::Write { source, .. } if refused(source) => Kind::Refused,
            TargetsError::Write { .. } => Kind::Failed,
        }
    }
}

impl Fix for TargetsError {
    fn fix(&self) -> Option<String> {
        match self {
            TargetsError::Report(e) => e.fix(),
            TargetsError::Unfit { .. } => Some(
                "derive from a run of one GPU model with no failure and at least 2 results per bench, \
                 or pass --force to derive anyway"
                    .into(),
            ),
            TargetsError::Write { .. } => Some("pass an --output FILE in a folder you can write".into()),
        }
    }
}
