//! Planning a run: slots (CPUs, memory nodes, memory per device) and the
//! command and environment of every instance (compat §2).

mod instance;
mod slots;

pub use instance::{instances, InstanceSpec, RunContext};
pub use slots::{count, plan, Slot, SlotError};
