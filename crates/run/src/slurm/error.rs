//! What can go wrong with Slurm, each with its fix.

use mlb_record::fix::Fix;
use std::path::PathBuf;

/// A Slurm run or submission that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// `--slurm` outside an allocation.
    #[error("--slurm runs inside a Slurm allocation, and SLURM_JOB_ID is not set")]
    NotInAllocation,
    /// A variable of the allocation is missing.
    #[error("the Slurm allocation does not set {name}")]
    Missing {
        /// The variable.
        name: &'static str,
    },
    /// A variable of the allocation cannot be read.
    #[error("cannot read {name}={value:?} of the Slurm allocation")]
    Unreadable {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// A Slurm command failed.
    #[error("{tool} failed: {message}")]
    Tool {
        /// `srun`, `sbatch`, `scontrol`...
        tool: &'static str,
        /// Its error.
        message: String,
    },
    /// `--devices 0`.
    #[error("--devices 0: a run needs at least one slot per node")]
    NoSlots,
    /// More slots than GPUs per node.
    #[error("--devices {asked}, but Slurm job {job} holds {have} GPUs per node, so nothing was started")]
    MoreSlotsThanGpus {
        /// Slots asked for.
        asked: usize,
        /// GPUs per node.
        have: usize,
        /// The job.
        job: String,
    },
    /// More slots than CPUs per node.
    #[error("{slots} slots per node need at least one CPU each, but Slurm job {job} holds {cpus} CPUs per node, so nothing was started")]
    MoreSlotsThanCpus {
        /// Slots per node.
        slots: usize,
        /// CPUs per node.
        cpus: usize,
        /// The job.
        job: String,
    },
    /// `--slurm --docker` on a cluster without pyxis.
    #[error("--slurm --docker needs the pyxis plugin of srun (--container-image), and this cluster's srun has none")]
    NoPyxis,
    /// A value written into the batch script holds a control character.
    #[error("{what} `{value}` holds a control character: every value is written into the batch script, where a newline would start a line of its own")]
    ControlCharacter {
        /// The option (or `sbatch flag`).
        what: String,
        /// Its value, control characters escaped.
        value: String,
    },
    /// A file of the run cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The step plan a task reads is missing or damaged.
    #[error("cannot read the step plan {}: {source}", path.display())]
    Plan {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::runtime::remote::PlanError,
    },
}

impl Fix for SlurmError {
    fn fix(&self) -> Option<String> {
        let fix = match self {
            SlurmError::NotInAllocation => {
                "submit the run with `mlb slurm submit --jobs FILE --nodes N`, or start it in an allocation \
                 (`salloc -N2` then `mlb --slurm --jobs FILE`)"
            }
            SlurmError::Missing { .. } => {
                "run mlb in the allocation's own shell or batch script, as salloc/sbatch start them"
            }
            SlurmError::Tool { .. } => {
                "check that Slurm's client commands are on PATH and reach the controller (SLURM_CONF)"
            }
            SlurmError::MoreSlotsThanGpus { .. } => "lower --devices, or allocate more GPUs per node (--gpus-per-node)",
            SlurmError::MoreSlotsThanCpus { slots, .. } => {
                return Some(format!(
                "lower --devices, or allocate more CPUs per node (e.g. --ntasks-per-node={slots} or --cpus-per-task)"
            ))
            }
            SlurmError::NoPyxis => "use --slurm --singularity IMAGE.sif, or ask the site for pyxis/enroot",
            SlurmError::ControlCharacter { .. } => "remove the control character from the value",
            SlurmError::Plan { .. } => "the output folder must be on a file system every node of the allocation sees",
            SlurmError::Unreadable { .. } | SlurmError::NoSlots | SlurmError::Write { .. } => return None,
        };
        Some(fix.into())
    }
}

impl mlb_record::exit::Classify for SlurmError {
    /// A Slurm tool or file that failed is a failure; everything else is
    /// found before anything starts: the run is refused.
    fn kind(&self) -> mlb_record::exit::Kind {
        match self {
            SlurmError::Tool { .. } | SlurmError::Write { .. } => mlb_record::exit::Kind::Failed,
            _ => mlb_record::exit::Kind::Refused,
        }
    }
}
