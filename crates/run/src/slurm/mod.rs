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
