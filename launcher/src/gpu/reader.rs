//! What the telemetry reads of an instance's GPUs, whatever their vendor:
//! a [`GpuReader`] per run, made by the vendor ([`crate::gpu::GpuVendor::telemetry`]).

use super::DeviceIndex;
use crate::reading::Reading;
use serde::{Deserialize, Serialize};

/// Reads a vendor's devices; shared by the samplers of a run's instances.
pub trait GpuReader: Send + Sync + std::fmt::Debug {
    /// What the devices are read through, for the block's `gpu` source.
    fn source(&self) -> String;

    /// The name and maxima of `device`, read once.
    fn maxima(&self, device: DeviceIndex) -> Maxima;

    /// Reads `device` once; what it does not support is left out.
    fn read(&self, device: DeviceIndex) -> Reading;
}

/// What a device's library says of it once: its name and maxima.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Maxima {
    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub name: Option<String>,
    /// The highest SM clock, MHz.
    pub sm_clock_max_mhz: Option<u32>,
    /// The highest memory clock, MHz.
    pub memory_clock_max_mhz: Option<u32>,
    /// The highest PCIe generation of the device and its slot.
    pub pcie_gen_max: Option<u32>,
    /// The widest PCIe link of the device and its slot.
    pub pcie_width_max: Option<u32>,
}
