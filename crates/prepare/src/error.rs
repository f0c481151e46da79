//! What can stop `mlb prepare`.

use super::manifest::ManifestError;
use super::scale::Scale;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use mlb_run::jobs::JobsError;
use mlb_run::launch::LaunchError;
use std::path::PathBuf;

/// Why `mlb prepare` stopped.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The jobs file or the selection (`--jobs`, `--name`): an unknown job, a bad file.
    #[error(transparent)]
    Jobs(#[from] JobsError),
    /// The folder of a data set holds something mlb did not prepare.
    #[error(
        "{path} holds something `mlb prepare` did not write (no {manifest}): refusing to write the {set} data set over it"
    )]
    Foreign {
        /// The folder.
        path: PathBuf,
        /// The data set.
        set: String,
        /// The manifest's file name.
        manifest: &'static str,
    },
    /// The folder holds the set prepared with other settings.
    #[error(
        "{path} holds the {set} data set prepared at scale {found_scale} with seed {found_seed}, not {scale} with seed {seed}"
    )]
    OtherSettings {
        /// The folder.
        path: PathBuf,
        /// The data set.
        set: String,
        /// Its scale.
        found_scale: Scale,
        /// Its seed.
        found_seed: u64,
        /// The scale asked for.
        scale: Scale,
        /// The seed asked for.
        seed: u64,
    },
    /// Files of a prepared set are missing or changed.
    #[error("{path} holds the {set} data set with {count} file(s) missing or changed since it was prepared ({first})")]
    Damaged {
        /// The folder.
        path: PathBuf,
        /// The data set.
        set: String,
        /// Number of files with a problem.
        count: usize,
        /// The first problem.
        first: String,
    },
    /// The manifest of a set cannot be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The disk filled up while a set was written; what was written of it is removed.
    #[error(
        "no space left to write the {set} data set: writing {path} failed ({source}); the partial set was removed \
         ({written} MB of it had been written)"
    )]
    NoSpace {
        /// The data set.
        set: String,
        /// The file whose write failed.
        path: PathBuf,
        /// MB written before.
        written: u64,
        /// The error.
        source: std::io::Error,
    },
    /// The host lock: a benchmark run holds the host (or it could not be
    /// named in the lock file).
    #[error(transparent)]
    Host(#[from] Box<LaunchError>),
    /// Another prepare is writing into the same data folder.
    #[error(
        "another mlb prepare is writing into {data}: {holder} (lock {lock}); two at once would empty each other's \
         partial sets"
    )]
    DataBusy {
        /// The data folder.
        data: PathBuf,
        /// The prepare writing there, as it describes itself.
        holder: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// The handlers of Ctrl-C, SIGTERM and SIGHUP could not be installed.
    #[error("cannot install the signal handlers: {0}")]
    Signals(#[source] std::io::Error),
    /// Any other write failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Another folder for the data: the way around a folder that cannot be written.
const ELSEWHERE: &str = "prepare into another folder with --base DIR";

impl Fix for PrepareError {
    fn fix(&self) -> Option<String> {
        match self {
            PrepareError::Jobs(e) => e.fix(),
            PrepareError::Foreign { .. } => Some(format!("move it away (the jobs read it as it is), or {ELSEWHERE}")),
            PrepareError::OtherSettings { found_scale, found_seed, .. } => Some(format!(
                "remove the folder to prepare it again, or pass --scale {found_scale} --seed {found_seed}"
            )),
            PrepareError::Damaged { .. } => Some("remove the folder and run mlb prepare again".into()),
            PrepareError::NoSpace { .. } => Some(format!("free space on that filesystem, or {ELSEWHERE}")),
            PrepareError::Host(e) => e.fix(),
            PrepareError::DataBusy { .. } => Some(format!("pass --wait to start once it has ended, or {ELSEWHERE}")),
            PrepareError::Manifest(_) | PrepareError::Write { .. } | PrepareError::Signals(_) => None,
        }
    }
}

impl Classify for PrepareError {
    fn kind(&self) -> Kind {
        match self {
            PrepareError::Jobs(_)
            | PrepareError::Foreign { .. }
            | PrepareError::OtherSettings { .. }
            | PrepareError::Damaged { .. }
            | PrepareError::Manifest(_)
            | PrepareError::DataBusy { .. }
            | PrepareError::Signals(_) => Kind::Refused,
            PrepareError::Host(e) => e.kind(),
            PrepareError::NoSpace { .. } | PrepareError::Write { .. } => Kind::Failed,
        }
    }
}
