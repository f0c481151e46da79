//! Why slot groups could not be made or verified.

use std::path::PathBuf;

/// A cgroup failure. Every failure to make or verify groups names `--no-cgroups`.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// The host does not let mlb create groups.
    #[error("cannot isolate slots with cgroups: {reason}; fix: run mlb as root with a writable cgroup filesystem offering the cpuset and memory controllers, or pass --no-cgroups to run without isolation")]
    Unsupported {
        /// Why.
        reason: String,
    },
    /// A group's folder could not be made.
    #[error("cannot create cgroup {group}: {source}; fix: check the cgroup filesystem, or pass --no-cgroups to run without isolation")]
    Create {
        /// The group's folder.
        group: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A limit could not be written.
    #[error("cannot write {value:?} to cgroup file {file}: {source}; fix: check that the controller is delegated and the slot's CPUs and memory nodes are online, or pass --no-cgroups to run without isolation")]
    Write {
        /// The interface file.
        file: PathBuf,
        /// What was written.
        value: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A limit did not take: the group reads another value than the slot's.
    #[error("cgroup {file} reads {got:?} where mlb set {wanted:?}: the limit did not take; fix: check that the controller is delegated, or pass --no-cgroups to run without isolation")]
    NotApplied {
        /// The file.
        file: PathBuf,
        /// What the slot asks for.
        wanted: String,
        /// What reads back.
        got: String,
    },
    /// cgroup v2: an inner node holds processes, so it cannot pass controllers down.
    #[error("cgroup {group} holds processes, so it cannot enable controllers for its children (cgroup v2 allows processes only in leaves); fix: move them to a leaf group, or pass --no-cgroups to run without isolation")]
    InnerNodeBusy {
        /// The group.
        group: PathBuf,
    },
    /// cgroup v2: a controller is not available in a group on the way down.
    #[error("cgroup {group} does not offer the {controller} controller (see its cgroup.controllers); fix: delegate it from the parent, or pass --no-cgroups to run without isolation")]
    ControllerMissing {
        /// The group.
        group: PathBuf,
        /// The controller.
        controller: String,
    },
    /// Reading or writing a cgroup file failed.
    #[error(
        "cgroup file {file}: {source}; fix: check the cgroup filesystem, or pass --no-cgroups to run without isolation"
    )]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A group could not be removed at the end of the run.
    #[error("cannot remove cgroup {group}: {source}; fix: remove it with rmdir once it holds no process and no group")]
    Remove {
        /// The group's folder.
        group: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl CgroupError {
    /// An I/O failure on `file`.
    pub fn io(file: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CgroupError {
        let file = file.into();
        move |source| CgroupError::Io { file, source }
    }
}
