//! Isolation of slots with cgroups (v1 and v2): support probing, the v2
//! delegation rules, the groups of a run and their OOM counters.

mod error;
mod groups;
mod oom;
pub mod support;
mod v2;

pub use error::CgroupError;
pub use groups::{RunGroups, SlotGroup};
pub use support::{Support, Version};
