//! Host detection (`mlb detect`): kind, GPUs, usable CPUs and memory, NUMA
//! nodes, cgroup support. Everything is read under a root path, so tests run
//! it on fixture trees of each kind of host.

mod detect;
mod kind;
mod memory;
mod numa;
pub mod position;
pub mod show;

pub use detect::{detect, Host, Probe};
pub use kind::HostKind;
pub use memory::Memory;
pub use numa::NumaNode;
pub use position::Position;
