//! Why an instance could not be started or run to its end.

use crate::runtime::docker::DockerError;
use crate::runtime::singularity::SingularityError;
use mlb_record::fix::Fix;
use std::path::PathBuf;
use std::sync::Arc;

/// An instance could not be started, or what ran it failed.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// Its process could not be spawned.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The thread that runs its container could not be made.
    #[error("cannot start a thread for the container: {0}")]
    Thread(std::io::Error),
    /// That thread panicked.
    #[error("the thread running the container panicked")]
    Panicked,
    /// Docker failed (or, for `--dry-run`, was not reached).
    #[error(transparent)]
    Docker(Arc<DockerError>),
    /// Apptainer/Singularity or its image was not found (`--dry-run` only).
    #[error(transparent)]
    Singularity(Arc<SingularityError>),
    /// A process whose container a step starts (pyxis), outside a step.
    #[error("this instance runs in a container that only a Slurm step starts (pyxis); run it with --slurm")]
    NeedsStep,
    /// A container of an engine the launcher drives, asked to run in a Slurm task.
    #[error("a Slurm task runs a process, not a container of the Docker daemon; --slurm --docker goes through pyxis")]
    NotAProcess,
    /// The plan of a step could not be written.
    #[error("cannot write the step plan {}: {source}", path.display())]
    StepPlan {
        /// The plan.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `srun` could not be started.
    #[error("cannot start srun: {0}")]
    Srun(std::io::Error),
    /// A Slurm task ended without its `end` line, before it said it started.
    #[error("the Slurm task ended without saying how (srun: {srun})")]
    TaskSilent {
        /// srun's exit status.
        srun: String,
    },
    /// A Slurm task was killed after it started its instance, before its `end` line.
    #[error(
        "the Slurm task was killed after it started its instance (srun: {srun}): how the instance ended is not known"
    )]
    TaskKilled {
        /// srun's exit status.
        srun: String,
    },
    /// The step of the instance did not start: why, shared by all its tasks.
    #[error(transparent)]
    Step(Arc<RuntimeError>),
}

impl Fix for RuntimeError {
    /// Docker's fix (a daemon down, an image missing); the others say what
    /// happened to one instance, which its record and log tell.
    fn fix(&self) -> Option<String> {
        match self {
            RuntimeError::Docker(e) => e.fix(),
            _ => None,
        }
    }
}
