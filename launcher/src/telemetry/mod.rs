//! Telemetry of every instance, scoped to its timed window.
//!
//! A [`Sampler`] per instance reads its [`Probes`]: the slot's cgroup and
//! CPUs ([`slot`]; a container's own group, [`process_group`]), the packages' energy ([`powercap`]), its GPUs through
//! the [`GpuReader`] their vendor makes ([`crate::gpu`]): NVIDIA's through
//! NVML ([`nvidia`]), AMD's through the AMD SMI library ([`amdsmi`]) and sysfs ([`amd`]). The worker announces the edges of its timed
//! window on stdout ([`crate::contract::window`]); [`scope`] scopes the
//! samples to it and [`block`] summarises them into the report's
//! `telemetry` block ([`attach`]). docs/telemetry.md describes every field.

pub mod amd;
pub mod amdsmi;
pub mod attach;
pub mod block;
pub mod gpu_reader;
pub mod nvidia;
pub mod powercap;
pub mod probes;
pub mod process_group;
pub mod reading;
pub mod sampler;
pub mod scope;
pub mod slot;
pub mod timeline;
pub mod xid;

pub use block::Telemetry;
pub use gpu_reader::{GpuReader, Maxima};
pub use probes::{Probes, Sources};
pub use sampler::{Sampler, SamplerSink};
