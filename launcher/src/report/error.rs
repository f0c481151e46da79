//! Errors of `mlb report`.

use std::path::PathBuf;

/// Why `mlb report` could not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The reports folder cannot be listed.
    #[error("cannot read the reports folder {path}: {source}; pass the output folder of a run with --reports DIR")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds no usable report.
    #[error("no reports in {path}{detail}; pass the output folder of a run with --reports DIR{hint}")]
    Empty {
        /// The folder.
        path: PathBuf,
        /// What was found instead (files unreadable, or of another suite).
        detail: String,
        /// How to fix it.
        hint: String,
    },
    /// The target table is unusable.
    #[error("target table {path}: {message}; expected CSV lines `bench,target,perf_target,sd_target`")]
    Targets {
        /// The file (or shipped table).
        path: String,
        /// What is wrong, with the line.
        message: String,
    },
    /// The HTML page cannot be written.
    #[error("cannot write the HTML report {path}: {source}")]
    Html {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
