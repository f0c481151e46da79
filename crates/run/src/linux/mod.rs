//! What the kernel says about this process, in its own notations, read
//! alike by the launcher, the isolation and the worker: CPU lists and the
//! affinity mask ([`cpulist`]), the memory cgroup and the limit above it
//! ([`cgroup`]), the processes carrying a mark in their environment
//! ([`marked`]), folders held open, read and written without following
//! a link ([`dir`]), and the host's name ([`hostname()`]). It imports
//! nothing of the crate.

pub mod cgroup;
pub mod cpulist;
pub mod dir;
mod hostname;
pub mod marked;

pub use cgroup::{memory_cgroup, memory_cgroup_at};
pub use hostname::hostname;
