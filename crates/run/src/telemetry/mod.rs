//! Telemetry of every instance, scoped to its timed window.
//!
//! A [`Sampler`] per instance reads its [`Probes`]: the slot's cgroup and
//! CPUs ([`slot`]; a container's own group, [`process_group`]), the
//! packages' energy ([`powercap`]), its GPUs through the
//! [`GpuReader`](crate::gpu::GpuReader) their vendor makes (NVIDIA's in
//! [`crate::gpu::nvidia`], AMD's in [`crate::gpu::amd`]); each gives a
//! [`Reading`](mlb_record::reading::Reading), gathered into a [`sample`]. The
//! worker announces the edges of its timed window on stdout
//! ([`mlb_record::contract::window`]); [`scope`] scopes the samples to it and
//! [`block`] summarises them into the report's `telemetry` block
//! ([`attach`]). docs/telemetry.md describes every field.

pub mod attach;
pub mod block;
pub mod powercap;
pub mod probes;
pub mod process_group;
pub mod sample;
pub mod sampler;
pub mod scope;
pub mod slot;
pub mod timeline;

pub use probes::{Probes, Sources};
pub use sampler::{Sampler, SamplerSink};
