//! Why a query of the store could not answer, with the fix.

use crate::store::StoreError;
use mlb_record::contract::record::refused;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// An error of `mlb db runs|systems|compare|history|export|vote`.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Collecting from other sites (`mlb db keys|push|pull|share|pushes`).
    #[error(transparent)]
    Collect(Box<crate::collect::CollectError>),
    /// The report of `mlb report --db` failed.
    #[error(transparent)]
    Report(#[from] mlb_judge::report::ReportError),
    /// A name given is no system of the store.
    #[error("no system `{name}` in the store (known: {})", if known.is_empty() { "none".to_string() } else { known.join(", ") })]
    UnknownSystem {
        /// The name given.
        name: String,
        /// The names the store holds.
        known: Vec<String>,
    },
    /// `--reference` or `--price` names a system `--systems` does not.
    #[error("`{name}` is not one of the systems compared ({})", systems.join(", "))]
    NotCompared {
        /// The name given.
        name: String,
        /// The systems of `--systems`.
        systems: Vec<String>,
    },
    /// `mlb db history` without `--system`.
    #[error("mlb db history needs the system whose history to show")]
    NoSystem,
    /// `mlb db export --to bencher` and no run selected.
    #[error("no run in the store matches{}", run.map_or(" the filters".to_string(), |id| format!(" the id {id}")))]
    NoRun {
        /// The run asked for, if one was.
        run: Option<i64>,
    },
    /// `mlb db vote` and no deterministic instance, stored or in the run folder.
    #[error("no deterministic instance in the store {store}{}: nothing to vote",
            reports.as_ref().map_or(String::new(), |dir| format!(" nor in {}", dir.display())))]
    NothingToVote {
        /// The store.
        store: String,
        /// The run folder given, if any.
        reports: Option<PathBuf>,
    },
    /// The export could not be written to stdout.
    #[error("cannot write the export to standard output: {0}")]
    Output(std::io::Error),
    /// The chart could not be written.
    #[error("cannot write the chart {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for QueryError {
    fn kind(&self) -> Kind {
        match self {
            QueryError::Store(e) => e.kind(),
            QueryError::Collect(e) => e.kind(),
            QueryError::Report(e) => e.kind(),
            QueryError::UnknownSystem { .. }
            | QueryError::NotCompared { .. }
            | QueryError::NoSystem
            | QueryError::NoRun { .. }
            | QueryError::NothingToVote { .. } => Kind::Refused,
            QueryError::Write { source, .. } if refused(source) => Kind::Refused,
            QueryError::Write { .. } | QueryError::Output(_) => Kind::Failed,
        }
    }
}

impl Fix for QueryError {
    fn fix(&self) -> Option<String> {
        match self {
            QueryError::Store(e) => e.fix(),
            QueryError::Collect(e) => e.fix(),
            QueryError::Report(e) => e.fix(),
            QueryError::UnknownSystem { .. } => {
                Some("pass the names `mlb db systems` lists (mlb db import --system NAME names a system)".into())
            }
            QueryError::NotCompared { .. } => Some("add it to --systems, or leave it out".into()),
            QueryError::NoSystem => Some("pass --system NAME (`mlb db systems` lists them)".into()),
            QueryError::NoRun { .. } => Some("pass --run ID of a run `mlb db runs` lists".into()),
            QueryError::NothingToVote { .. } => Some(
                "run a config with `deterministic: true` (docs/determinism.md) and import its folder, or pass it with \
                 --reports DIR; with --system, --bench or other filters, select runs that hold one"
                    .into(),
            ),
            QueryError::Write { .. } => Some("pass --output a file in a folder you can write".into()),
            QueryError::Output(_) => Some("write the export to a file or a pipe with room for it".into()),
        }
    }
}

impl From<crate::collect::CollectError> for QueryError {
    fn from(error: crate::collect::CollectError) -> QueryError {
        QueryError::Collect(Box::new(error))
    }
}
