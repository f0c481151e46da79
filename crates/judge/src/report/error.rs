//! Errors of `mlb report`.

use mlb_record::contract::record::refused;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// Why `mlb report` could not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The reports folder cannot be listed.
    #[error("cannot read the reports folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds no usable report.
    #[error("no reports in {path}{detail}")]
    Empty {
        /// The folder.
        path: PathBuf,
        /// What was found instead (files unreadable, or of another suite).
        detail: String,
        /// What to add to the fix (a `--suite` that would find them).
        hint: String,
    },
    /// The target table is unusable.
    #[error("target table {path}: {message}")]
    Targets {
        /// The file (or shipped table).
        path: String,
        /// What is wrong, with the line.
        message: String,
    },
    /// `--gpu-model NAME` names no shipped table and no file of a target folder.
    #[error("no target table for GPU model `{name}` (known: {})", known.join(", "))]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// Every name found, in lookup order.
        known: Vec<String>,
    },
    /// `--baseline` of another accelerator model, without `--force`.
    #[error("{reports} ran on `{current}` and the baseline {baseline} on `{base}` (their system.json): their figures are not comparable")]
    OtherAccelerator {
        /// The reports folder.
        reports: PathBuf,
        /// Its accelerator model.
        current: String,
        /// The baseline folder.
        baseline: PathBuf,
        /// The baseline's accelerator model.
        base: String,
    },
    /// The HTML page cannot be written.
    #[error("cannot write the HTML report {path}: {source}")]
    Html {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--to-quality` or `--write-rcp` on a folder without a run to quality.
    #[error("no run to quality in {path}: no completed report with a `quality` block beside an MLLOG file")]
    NoQualityRun {
        /// The folder.
        path: PathBuf,
    },
    /// The reference set cannot be read.
    #[error(transparent)]
    Rcp(#[from] mlb_run::quality::rcp::RcpError),
    /// A config's runs cannot be a reference point (`--write-rcp`).
    #[error("{0}; nothing was written")]
    Reference(#[from] mlb_run::quality::rcp::ReferenceError),
    /// The reference set cannot be written.
    #[error("cannot write the RCP file {path}: {source}")]
    RcpWrite {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C or SIGTERM came before the HTML page was in place.
    #[error("interrupted before the HTML report {path} was written: the page there before, if any, is left as it was")]
    Interrupted {
        /// The page.
        path: PathBuf,
    },
}

impl Classify for ReportError {
    /// A folder or target table that cannot be used is refused before
    /// anything is computed; an HTML page that cannot be written fails; a
    /// signal during its write interrupts.
    fn kind(&self) -> Kind {
        match self {
            ReportError::Folder { .. }
            | ReportError::Empty { .. }
            | ReportError::Targets { .. }
            | ReportError::UnknownModel { .. }
            | ReportError::OtherAccelerator { .. }
            | ReportError::NoQualityRun { .. }
            | ReportError::Rcp(_)
            | ReportError::Reference(_) => Kind::Refused,
            ReportError::Html { source, .. } | ReportError::RcpWrite { source, .. } if refused(source) => Kind::Refused,
            ReportError::Html { .. } | ReportError::RcpWrite { .. } => Kind::Failed,
            ReportError::Interrupted { .. } => Kind::Interrupted,
        }
    }
}

impl Fix for ReportError {
    fn fix(&self) -> Option<String> {
        match self {
            ReportError::Folder { .. } => Some("pass the output folder of a run with --reports DIR".into()),
            ReportError::Empty { hint, .. } => {
                Some(format!("pass the output folder of a run with --reports DIR{hint}"))
            }
            ReportError::Targets { .. } => Some("write it as CSV lines `bench,target,perf_target,sd_target`".into()),
            ReportError::UnknownModel { name, .. } => Some(format!(
                "pass one of the known names, or write `{name}.csv` into your target folder \
                 (`mlb targets derive --gpu-model {name} --output FILE` derives one from a run; `mlb targets list` shows the folders)"
            )),
            ReportError::OtherAccelerator { .. } => {
                Some("compare runs of one accelerator model, or pass --force to compare anyway".into())
            }
            ReportError::NoQualityRun { .. } => {
                Some("pass the output folder of an `mlb --jobs FILE --to-quality` run with --reports DIR".into())
            }
            ReportError::Reference(e) => e.fix(),
            ReportError::Rcp(mlb_run::quality::rcp::RcpError::Read { .. }) => {
                Some("pass an RCP file with --rcp FILE (`mlb report --write-rcp FILE` makes one from runs to quality)".into())
            }
            // A file of another shape says its fix in its message.
            ReportError::Rcp(_) | ReportError::Html { .. } | ReportError::RcpWrite { .. } | ReportError::Interrupted { .. } => {
                None
            }
        }
    }
}
