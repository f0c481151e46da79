//! What the telemetry reads of an instance's GPUs, whatever their vendor:
//! a [`GpuReader`] per run, made by the vendor ([`crate::gpu::GpuVendor::telemetry`]).

use super::DeviceIndex;
pub use mlb_record::contract::telemetry::Maxima;
use mlb_record::reading::Reading;

/// Reads a vendor's devices; shared by the samplers of a run's instances.
pub trait GpuReader: Send + Sync + std::fmt::Debug {
    /// What the devices are read through, for the block's `gpu` source.
    fn source(&self) -> String;

    /// The name and maxima of `device`, read once.
    fn maxima(&self, device: DeviceIndex) -> Maxima;

    /// Reads `device` once; what it does not support is left out.
    fn read(&self, device: DeviceIndex) -> Reading;
}
