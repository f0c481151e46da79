//! Isolation of slots ([`Slot`]) with cgroups (v1 and v2): support probing, the v2
//! delegation rules, the groups of a run below a mount point and their OOM
//! counters, what a fault does to a running slot (`control`); and the [`Isolation`] an instance gets, whatever applies it.

pub mod control;
mod error;
mod groups;
mod oom;
mod root;
mod slot;
pub mod support;
#[cfg(test)]
pub(crate) mod tests;
mod v2;

pub use error::CgroupError;
pub use groups::{RunGroups, SlotGroup};
pub use mlb_record::contract::isolation::Isolation;
pub use oom::own_kills as own_oom_kills;
pub use root::CgroupRoot;
pub use slot::Slot;
pub use support::{Support, Version};
