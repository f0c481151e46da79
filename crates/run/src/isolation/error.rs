//! Why slot groups could not be made or verified.

use mlb_record::fix::Fix;
use std::path::PathBuf;

/// A cgroup failure. Every failure to make or verify groups names `--no-cgroups`.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// The host does not let mlb create groups.
    #[error("cannot isolate slots with cgroups: {reason}")]
    Unsupported {
        /// Why.
        reason: String,
    },
    /// A group's folder could not be made.
    #[error("cannot create cgroup {group}: {source}")]
    Create {
        /// The group's folder.
        group: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A limit could not be written.
    #[error("cannot write {value:?} to cgroup file {file}: {source}")]
    Write {
        /// The interface file.
        file: PathBuf,
        /// What was written.
        value: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A limit did not take: the group reads another value than the slot's.
    #[error("cgroup {file} reads {got:?} where mlb set {wanted:?}: the limit did not take")]
    NotApplied {
        /// The file.
        file: PathBuf,
        /// What the slot asks for.
        wanted: String,
        /// What reads back.
        got: String,
    },
    /// cgroup v2: an inner node holds processes, so it cannot pass controllers down.
    #[error("cgroup {group} holds processes, so it cannot enable controllers for its children (cgroup v2 allows processes only in leaves)")]
    InnerNodeBusy {
        /// The group.
        group: PathBuf,
    },
    /// cgroup v2: a controller is not available in a group on the way down.
    #[error("cgroup {group} does not offer the {controller} controller (see its cgroup.controllers)")]
    ControllerMissing {
        /// The group.
        group: PathBuf,
        /// The controller.
        controller: String,
    },
    /// Reading or writing a cgroup file failed.
    #[error("cgroup file {file}: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A group could not be removed at the end of the run.
    #[error("cannot remove cgroup {group}: {source}")]
    Remove {
        /// The group's folder.
        group: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// The way around every group that cannot be made: no isolation.
const WITHOUT: &str = "pass --no-cgroups to run without isolation";

impl Fix for CgroupError {
    fn fix(&self) -> Option<String> {
        let what = match self {
            CgroupError::Unsupported { .. } => {
                "run mlb as root with a writable cgroup filesystem offering the cpuset and memory controllers"
            }
            CgroupError::Create { .. } | CgroupError::Io { .. } => "check the cgroup filesystem",
            CgroupError::Write { .. } => {
                "check that the controller is delegated and the slot's CPUs and memory nodes are online"
            }
            CgroupError::NotApplied { .. } => "check that the controller is delegated",
            CgroupError::InnerNodeBusy { .. } => "move them to a leaf group",
            CgroupError::ControllerMissing { .. } => "delegate it from the parent",
            CgroupError::Remove { .. } => {
                return Some("remove it with rmdir once it holds no process and no group".into())
            }
        };
        Some(format!("{what}, or {WITHOUT}"))
    }
}

impl CgroupError {
    /// An I/O failure on `file`.
    pub fn io(file: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CgroupError {
        let file = file.into();
        move |source| CgroupError::Io { file, source }
    }
}
