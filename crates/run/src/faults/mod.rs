//! Faults injected into a run on a schedule (`mlb --inject`,
//! docs/faults.md): what `--inject` accepts ([`spec`]) and the faults of
//! one config on its clock, applied to its running instances and recorded
//! ([`schedule`]). What a fault does to a slot's group is the isolation
//! layer's (`isolation::control`).

pub mod schedule;
pub mod spec;

pub use schedule::{Schedule, Subject};
pub use spec::{Fault, Kind, Target};
