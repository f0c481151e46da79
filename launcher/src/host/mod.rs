//! Host detection (`mlb detect`): kind, GPUs, usable CPUs and memory, NUMA
//! nodes, cgroup support. Everything is read under a root path, so tests run
//! it on fixture trees of each kind of host.

mod amd;
pub mod cpulist;
mod detect;
mod gpu;
mod kind;
mod memory;
mod numa;
mod nvidia;
pub mod show;

pub use detect::{detect, Host, Probe};
pub use gpu::{Gpu, Vendor};
pub use kind::HostKind;
pub use memory::{memory_cgroup, memory_cgroup_at, Memory};
pub use numa::NumaNode;
