//! What mlb knows about one GPU.

use serde::Serialize;
use std::path::Path;

/// GPU vendor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// NVIDIA (CUDA).
    Nvidia,
    /// AMD (ROCm).
    Amd,
}

/// One GPU, in the order the vendor runtime numbers them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gpu {
    /// Device index as the runtime sees it (`CUDA_VISIBLE_DEVICES` value).
    pub index: usize,
    /// Vendor.
    pub vendor: Vendor,
    /// Model name.
    pub name: String,
    /// Device memory, when known.
    pub memory_bytes: Option<u64>,
    /// NUMA node the device is attached to, when the topology says so.
    pub numa_node: Option<usize>,
    /// PCI address `dddd:bb:dd.f`.
    pub pci_bus: String,
    /// Where the information came from (`nvml`, `sysfs`, `kfd`).
    pub source: &'static str,
}

/// The NUMA node of a PCI device from its sysfs folder (`-1` means none).
pub fn pci_numa_node(root: &Path, pci_bus: &str) -> Option<usize> {
    let text = std::fs::read_to_string(root.join("sys/bus/pci/devices").join(pci_bus).join("numa_node")).ok()?;
    text.trim().parse::<i64>().ok().filter(|&n| n >= 0).map(|n| n as usize)
}
