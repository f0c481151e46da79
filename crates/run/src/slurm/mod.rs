//! Slurm: one jobs file across the nodes of an allocation (`mlb --slurm`),
//! and `mlb slurm submit` to ask for that allocation. Slurm is a site of
//! the runtime layer ([`SlurmSite`]: where instances run, whatever backend
//! wraps them): each job config is one job step with one task per slot on
//! every node; each task (`mlb slurm task`) supervises its instance on its
//! node and sends its outcome back. [`pyxis`] is the backend of
//! `--slurm --docker`.

mod allocation;
mod error;
pub mod pyxis;
mod site;
mod step;
pub mod submit;
pub mod task;

pub use allocation::Allocation;
pub use error::SlurmError;
pub use site::SlurmSite;
pub use step::StepShape;
pub use submit::SubmitArgs;

use clap::Subcommand;
use std::path::PathBuf;

/// `mlb slurm ...`
#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Writes an sbatch script running `mlb --slurm --jobs FILE` into the output folder and submits it.
    Submit(Box<SubmitArgs>),
    /// Runs one task of a job step on its node (started by `mlb --slurm` through srun).
    #[command(hide = true)]
    Task {
        /// The step's plan.
        #[arg(long, value_name = "FILE")]
        plan: PathBuf,
    },
}
