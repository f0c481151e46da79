//! Why slot groups could not be made or verified.

use std::path::PathBuf;

/// A cgroup failure. Every message ends by naming `--no-cgroups`.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// The host does not let mlb create groups.
    #[error("cannot isolate slots with cgroups: {reason}; fix: run mlb as root with a writable cgroup filesystem offering the cpuset and memory controllers, or pass --no-cgroups to run without isolation")]
    Unsupported {
        /// Why.
        reason: String,
    },
    /// A group could not be created or configured.
    #[error("cannot create cgroup {group}: {message}; fix: check the cgroup filesystem, or pass --no-cgroups to run without isolation")]
    Create {
        /// The group.
        group: String,
        /// What failed.
        message: String,
    },
    /// A value written did not read back.
    #[error("cgroup {file} reads {got:?} after mlb wrote {wanted:?}: the limit did not take; fix: check that the controller is delegated, or pass --no-cgroups to run without isolation")]
    NotApplied {
        /// The file.
        file: PathBuf,
        /// What was written.
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
}

impl CgroupError {
    /// An I/O failure on `file`.
    pub fn io(file: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CgroupError {
        let file = file.into();
        move |source| CgroupError::Io { file, source }
    }
}
