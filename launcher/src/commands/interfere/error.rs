//! Why `mlb interfere` refused or gave no matrix.

use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use mlb_run::launch::LaunchError;
use std::path::PathBuf;

/// Why `mlb interfere` gave no matrix.
#[derive(Debug, thiserror::Error)]
pub enum InterfereError {
    /// The launch of the rounds refused or failed.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A job that cannot sit on one slot beside another.
    #[error("{}: job {job:?} {why}; a matrix measures plugin jobs of one instance a slot", path.display())]
    NotOneSlot {
        /// The jobs file.
        path: PathBuf,
        /// The job.
        job: String,
        /// What it is instead.
        why: &'static str,
    },
    /// Fewer than two workloads: nothing to put beside another.
    #[error("{}: {count} workload selected; a matrix needs two at least", path.display())]
    TooFewWorkloads {
        /// The jobs file.
        path: PathBuf,
        /// The workloads found.
        count: usize,
    },
    /// Fewer than two slots: no neighbour.
    #[error("{slots} slot planned; a victim and its aggressor need two")]
    TooFewSlots {
        /// The slots planned.
        slots: usize,
    },
    /// `--victims` or `--aggressors` names a workload the jobs file has not.
    #[error("{}: no workload {name:?} (--{flag}); the workloads are {known}", path.display())]
    UnknownWorkload {
        /// The jobs file.
        path: PathBuf,
        /// The flag that named it.
        flag: &'static str,
        /// The name.
        name: String,
        /// The workloads of the file.
        known: String,
    },
    /// No pair of a victim and a different aggressor.
    #[error("--victims and --aggressors leave no pair of two different workloads")]
    NoPair,
    /// A file of the matrix could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for InterfereError {
    fn kind(&self) -> Kind {
        match self {
            InterfereError::Launch(e) => e.kind(),
            InterfereError::Write { .. } => Kind::Failed,
            _ => Kind::Refused,
        }
    }
}

impl Fix for InterfereError {
    fn fix(&self) -> Option<String> {
        match self {
            InterfereError::Launch(e) => e.fix(),
            InterfereError::NotOneSlot { .. } => {
                Some("leave the job out with another jobs file, or give it \"plugin\" and \"cgroup\": \"student\" without \"group\"".into())
            }
            InterfereError::TooFewWorkloads { .. } => Some("list two jobs or more in the jobs file".into()),
            InterfereError::TooFewSlots { .. } => Some("pass --devices 2 (or more) on a host without GPU".into()),
            InterfereError::UnknownWorkload { flag, .. } => Some(format!("name workloads of the jobs file in --{flag}")),
            InterfereError::NoPair => Some("name two different workloads between --victims and --aggressors".into()),
            InterfereError::Write { .. } => Some("pass a writable --outdir".into()),
        }
    }
}
