//! Planning a run: slots (CPUs, memory nodes, memory per device) and the
//! typed instances every runtime starts (docs/launcher.md, "The host and its slots").

mod group;
mod instance;
mod slots;

pub use group::{store_port, Meeting, MASTER_PORT};
pub use instance::{instances, node_outdir, Instance, Placement, PluginFile, RunContext, Work, WorkerPaths};
pub use slots::{count, plan, SlotError};
