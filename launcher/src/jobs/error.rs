//! Why a jobs file was refused.

use super::render::one_line;
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
    #[error("{path}:{line}:{column}: {message}; fix: a jobs file is a {format} list of {{name, cmd|plugin, args, cgroup}} objects")]
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
    #[error("{path}: the jobs file holds no job; fix: add at least one {{name, cmd|plugin, args}} entry")]
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
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The file's name, after which the suite is named, holds a control character.
    #[error("{}: the file name holds a control character ({control:?}), and the suite is named after the file (it names every report and log); fix: rename the file", one_line(&path.display().to_string()))]
    SuiteName {
        /// The file.
        path: PathBuf,
        /// The character.
        control: char,
    },
}
