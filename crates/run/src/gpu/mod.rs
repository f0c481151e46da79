//! GPUs, one home per vendor: what a GPU is ([`Gpu`], its [`DeviceIndex`])
//! and, per [`Vendor`], one folder whose `mod.rs` implements [`GpuVendor`]:
//! detection, the visible-devices variables, container access, the driver's
//! versions for `system.json`, the doctor's checks and the telemetry reader
//! (a [`GpuReader`], in the folder's `probe.rs`), and the vendor's own
//! diagnostic tool ([`Diagnostic`]: `nvidia/dcgmi.rs`, `amd/rvs.rs`); each vendor opens its
//! management library once per process, honouring its override variable
//! (`MLB_NVML_LIBRARY`, `MLB_AMDSMI_LIBRARY`). What a vendor gives back, a
//! [`Check`] and a [`Reading`](mlb_record::reading::Reading), is defined below
//! this module, so that the doctor and the telemetry that call into it are
//! not imported by it.
//!
//! A new vendor (say Intel XPU through its management library) is a folder
//! here implementing [`GpuVendor`] and an arm of [`Vendor`] (and of
//! [`Vendor::ops`]).

pub mod amd;
mod device;
mod diagnostic;
pub mod nvidia;
pub mod peak;
mod reader;

pub use device::{device_list, DeviceIndex};
pub use diagnostic::{Diagnostic, TestResult};
pub use nvidia::open as open_nvml;
pub use reader::{GpuReader, Maxima};

use crate::check::Check;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// GPU vendor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// NVIDIA (CUDA).
    Nvidia,
    /// AMD (ROCm).
    Amd,
}

impl Vendor {
    /// Every vendor, in the order detection asks them: the first that finds
    /// GPUs gives the host's.
    pub const ALL: [Vendor; 2] = [Vendor::Amd, Vendor::Nvidia];

    /// What mlb does with this vendor's GPUs.
    pub fn ops(self) -> &'static dyn GpuVendor {
        match self {
            Vendor::Nvidia => &nvidia::Nvidia,
            Vendor::Amd => &amd::Amd,
        }
    }
}

/// One GPU, in the order the vendor runtime numbers them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gpu {
    /// Device index as the runtime sees it (`CUDA_VISIBLE_DEVICES` value).
    pub index: DeviceIndex,
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

/// How a container runtime reaches a vendor's devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContainerAccess {
    /// A device request to the runtime's `driver` for these device ids
    /// (NVIDIA's container toolkit).
    Request {
        /// The request's driver (`nvidia`).
        driver: &'static str,
        /// The devices, as the driver names them.
        ids: Vec<String>,
    },
    /// Device nodes passed into the container, whose groups it joins
    /// (ROCm's `/dev/kfd` and render nodes).
    Nodes(Vec<PathBuf>),
}

/// The GPUs a container is given: one vendor's devices, by host index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerGpus {
    /// Their vendor.
    pub vendor: Vendor,
    /// The devices.
    pub devices: Vec<DeviceIndex>,
}

impl ContainerGpus {
    /// How a container reaches them.
    pub fn access(&self) -> ContainerAccess {
        self.vendor.ops().container_access(&self.devices)
    }
}

/// Why a vendor's telemetry is not read, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    /// Why (`NVML did not load: ...`).
    pub why: String,
    /// The fix.
    pub fix: String,
}

/// Everything mlb does that depends on a GPU's vendor.
pub trait GpuVendor: Sync {
    /// The vendor's GPUs on the host under `root` (`/` on the real host), in
    /// runtime order; its management library is asked only when `library`
    /// (the real host).
    fn detect(&self, root: &Path, library: bool) -> Vec<Gpu>;

    /// The variables that select the visible devices.
    fn visible_devices_vars(&self) -> &'static [&'static str];

    /// How a Docker container reaches `devices`.
    fn container_access(&self, devices: &[DeviceIndex]) -> ContainerAccess;

    /// The flag giving an Apptainer (Singularity) container the GPUs.
    fn apptainer_flag(&self) -> &'static str;

    /// The driver's version and the toolkit's (CUDA's, ROCm's), for
    /// `system.json`; empty where unknown.
    fn versions(&self, root: &Path) -> (String, String);

    /// The doctor's checks of the host's `gpus` of this vendor.
    fn checks(&self, gpus: &[Gpu]) -> Vec<Check>;

    /// The reader of the telemetry of the host's `gpus` of this vendor,
    /// through its library opened once per process.
    fn telemetry(&self, gpus: &[Gpu]) -> Result<Arc<dyn GpuReader>, Unavailable>;
}

/// The GPUs of the host under `root`: those of the first vendor (in
/// [`Vendor::ALL`]'s order) that finds any.
pub fn detect(root: &Path, library: bool) -> Vec<Gpu> {
    Vendor::ALL.iter().map(|v| v.ops().detect(root, library)).find(|g| !g.is_empty()).unwrap_or_default()
}

/// The vendor of `gpus` (the first GPU's), `None` without GPU.
pub fn vendor_of(gpus: &[Gpu]) -> Option<Vendor> {
    gpus.first().map(|g| g.vendor)
}

/// The NUMA node of a PCI device from its sysfs folder (`-1` means none).
fn pci_numa_node(root: &Path, pci_bus: &str) -> Option<usize> {
    let text = std::fs::read_to_string(root.join("sys/bus/pci/devices").join(pci_bus).join("numa_node")).ok()?;
    text.trim().parse::<i64>().ok().filter(|&n| n >= 0).map(|n| n as usize)
}
