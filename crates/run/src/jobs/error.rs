//! Why a jobs file was refused.

use super::render::one_line;
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// A jobs file that cannot be run. Every variant names the file, and the job
/// when one is at fault.
#[derive(Debug, thiserror::Error)]
pub enum JobsError {
    /// The file could not be read.
    #[error("cannot read jobs file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid JSON or YAML, or not shaped like a jobs file.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// The parser's message.
        message: String,
        /// `JSON` or `YAML`.
        format: &'static str,
    },
    /// The file holds no job.
    #[error("{path}: the jobs file holds no job")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A job is malformed (both or neither of cmd/plugin, bad cgroup...).
    #[error("{path}: job #{position} `{}`: {message}", one_line(job))]
    Job {
        /// The file.
        path: PathBuf,
        /// 1-based position of the job in the file.
        position: usize,
        /// The job's name.
        job: String,
        /// What is wrong.
        message: String,
        /// What to do about it.
        fix: Option<&'static str>,
    },
    /// The file's name, after which the suite is named, holds a control character.
    #[error("{}: the file name holds a control character ({control:?}), and the suite is named after the file (it names every report and log)", one_line(&path.display().to_string()))]
    SuiteName {
        /// The file.
        path: PathBuf,
        /// The character.
        control: char,
    },
    /// `--name`/`--exclude` names a job the file does not hold.
    #[error("{path}: no job named `{name}`; jobs in the file: {available}")]
    UnknownJob {
        /// The jobs file.
        path: PathBuf,
        /// The name given.
        name: String,
        /// Job names in the file.
        available: String,
    },
    /// The filters leave nothing to run.
    #[error("{path}: --name/--exclude leave no job to run")]
    NothingSelected {
        /// The jobs file.
        path: PathBuf,
    },
    /// `--jobs NAME` is neither a file nor an installed suite.
    #[error("no jobs file and no installed suite named `{name}`; installed suites: {installed}")]
    UnknownSuite {
        /// The name given.
        name: String,
        /// Suites found, comma-separated.
        installed: String,
    },
}

impl Fix for JobsError {
    fn fix(&self) -> Option<String> {
        match self {
            JobsError::Syntax { format, .. } => {
                Some(format!("a jobs file is a {format} list of {{name, cmd|plugin, args, cgroup}} objects"))
            }
            JobsError::Empty { .. } => Some("add at least one {name, cmd|plugin, args} entry".into()),
            JobsError::Job { fix, .. } => fix.map(Into::into),
            JobsError::SuiteName { .. } => Some("rename the file".into()),
            JobsError::UnknownSuite { .. } => Some("give the path of a jobs file, or one of those names".into()),
            JobsError::Read { .. } | JobsError::UnknownJob { .. } | JobsError::NothingSelected { .. } => None,
        }
    }
}
