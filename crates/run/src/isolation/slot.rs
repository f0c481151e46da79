//! A slot: what one instance is confined to, planned by the launcher and
//! applied by a slot's group.

use crate::gpu::DeviceIndex;
use serde::Serialize;

/// One slot: a device, an exclusive block of CPUs, memory nodes and memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// Slot index (the instance's `JOB_ID`).
    pub index: usize,
    /// Its visible device.
    pub device: DeviceIndex,
    /// Its CPUs: a contiguous block of the usable CPUs.
    pub cpus: Vec<usize>,
    /// Its memory nodes.
    pub mems: Vec<usize>,
    /// Its memory limit in bytes.
    pub memory_bytes: u64,
}
