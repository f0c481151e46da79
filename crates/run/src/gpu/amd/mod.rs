//! AMD GPUs: found in the KFD topology (`/sys/class/kfd/kfd/topology/nodes`)
//! and the DRM render nodes; `HIP_VISIBLE_DEVICES` and
//! `ROCR_VISIBLE_DEVICES`; `/dev/kfd` and the render nodes passed into a
//! Docker container, Apptainer's `--rocm`; the amdgpu driver's and ROCm's
//! versions; telemetry through the AMD SMI library when it loads and sysfs
//! ([`amdsmi`], [`probe`]); the ROCm Validation Suite's diagnostics
//! ([`rvs`]). The doctor has no AMD check yet.

pub mod amdsmi;
pub mod probe;
pub mod rvs;

pub use amdsmi::AmdSmi;
pub use probe::AmdProbe;

use super::{pci_numa_node, ContainerAccess, DeviceIndex, Gpu, GpuReader, GpuVendor, Unavailable, Vendor};
use crate::check::Check;
use mlb_record::contract::env;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The variable naming the AMD SMI library to load instead of
/// `libamd_smi.so` from the loader's path or `/opt/rocm/lib` (a path).
const AMDSMI_LIBRARY: &str = "MLB_AMDSMI_LIBRARY";

/// AMD's compute interface, needed by every ROCm container.
const KFD: &str = "/dev/kfd";

/// AMD's GPUs.
pub struct Amd;

/// The AMD SMI library of this process: loaded on first use from
/// [`AMDSMI_LIBRARY`] when set; or why it cannot be used.
fn amdsmi() -> Result<Arc<AmdSmi>, String> {
    static SMI: OnceLock<Result<Arc<AmdSmi>, String>> = OnceLock::new();
    SMI.get_or_init(|| AmdSmi::load(std::env::var_os(AMDSMI_LIBRARY).as_deref())).clone()
}

/// The DRM render node of GPU `index`, the conventional
/// `/dev/dri/renderD{128+index}` (true when every GPU has a render node and
/// no other DRM device precedes them).
fn render_node(index: DeviceIndex) -> PathBuf {
    PathBuf::from(format!("/dev/dri/renderD{}", 128 + index.0))
}

impl GpuVendor for Amd {
    fn detect(&self, root: &Path, _library: bool) -> Vec<Gpu> {
        from_kfd(root)
    }

    fn visible_devices_vars(&self) -> &'static [&'static str] {
        &[env::HIP_VISIBLE_DEVICES, env::ROCR_VISIBLE_DEVICES]
    }

    fn container_access(&self, devices: &[DeviceIndex]) -> ContainerAccess {
        ContainerAccess::Nodes(
            std::iter::once(PathBuf::from(KFD)).chain(devices.iter().map(|&d| render_node(d))).collect(),
        )
    }

    fn apptainer_flag(&self) -> &'static str {
        "--rocm"
    }

    fn versions(&self, root: &Path) -> (String, String) {
        let read = |p: &str| std::fs::read_to_string(root.join(p)).map(|s| s.trim().to_string()).unwrap_or_default();
        (read("sys/module/amdgpu/version"), read("opt/rocm/.info/version"))
    }

    fn checks(&self, _gpus: &[Gpu]) -> Vec<Check> {
        vec![Check::pass("gpus", "AMD GPUs: mlb has no AMD check yet")]
    }

    fn telemetry(&self, gpus: &[Gpu]) -> Result<Arc<dyn GpuReader>, Unavailable> {
        let smi = amdsmi();
        Ok(Arc::new(AmdProbe::of(gpus, Path::new("/"), smi.as_ref().map_err(String::as_str))))
    }
}

/// AMD GPUs of the host under `root`, in KFD node order (the HIP device order).
fn from_kfd(root: &Path) -> Vec<Gpu> {
    let nodes = root.join("sys/class/kfd/kfd/topology/nodes");
    let mut ids: Vec<usize> = std::fs::read_dir(&nodes)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_string_lossy().parse().ok())
        .collect();
    ids.sort_unstable();
    let mut out = Vec::new();
    for id in ids {
        let node = nodes.join(id.to_string());
        let props = properties(&node.join("properties"));
        if props.get("simd_count").copied().unwrap_or(0) == 0 {
            continue; // a CPU node
        }
        let location = props.get("location_id").copied().unwrap_or(0);
        let domain = props.get("domain").copied().unwrap_or(0);
        let pci_bus =
            format!("{domain:04x}:{:02x}:{:02x}.{:x}", (location >> 8) & 0xff, (location >> 3) & 0x1f, location & 0x7);
        let minor = props.get("drm_render_minor").copied();
        let drm = minor.map(|m| root.join(format!("sys/class/drm/renderD{m}/device")));
        let product = drm.as_ref().and_then(|d| std::fs::read_to_string(d.join("product_name")).ok());
        let name = product
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .or_else(|| std::fs::read_to_string(node.join("name")).ok().map(|n| n.trim().to_string()))
            .unwrap_or_else(|| "AMD GPU".into());
        let numa_from_drm = drm
            .and_then(|d| std::fs::read_to_string(d.join("numa_node")).ok())
            .and_then(|t| t.trim().parse::<i64>().ok())
            .filter(|&n| n >= 0)
            .map(|n| n as usize);
        out.push(Gpu {
            index: out.len().into(),
            vendor: Vendor::Amd,
            name,
            memory_bytes: vram(&node),
            numa_node: numa_from_drm.or_else(|| pci_numa_node(root, &pci_bus)),
            pci_bus,
            source: "kfd",
        });
    }
    out
}

/// `key value` lines of a KFD properties file.
fn properties(file: &Path) -> HashMap<String, u64> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// Device memory: the sum of the node's VRAM banks (heap types 1 and 2).
fn vram(node: &Path) -> Option<u64> {
    let banks = std::fs::read_dir(node.join("mem_banks")).ok()?;
    let total: u64 = banks
        .filter_map(|b| b.ok())
        .map(|b| properties(&b.path().join("properties")))
        .filter(|p| matches!(p.get("heap_type"), Some(1 | 2)))
        .filter_map(|p| p.get("size_in_bytes").copied())
        .sum();
    (total > 0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_leave_as_kfd_and_render_nodes() {
        let access = Amd.container_access(&[DeviceIndex(2)]);
        assert_eq!(access, ContainerAccess::Nodes(vec!["/dev/kfd".into(), "/dev/dri/renderD130".into()]));
        assert_eq!(Amd.visible_devices_vars(), ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]);
        assert_eq!(Amd.apptainer_flag(), "--rocm");
    }
}
