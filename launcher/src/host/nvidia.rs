//! NVIDIA GPUs: through NVML when the library loads, else from sysfs and
//! `/proc/driver/nvidia`.

use super::gpu::{pci_numa_node, Gpu, Vendor};
use std::path::Path;

/// PCI vendor id of NVIDIA.
const VENDOR_ID: &str = "0x10de";

/// NVIDIA GPUs of the host under `root`. NVML is asked only when `use_nvml`
/// (the real host); its absence is not an error.
pub fn gpus(root: &Path, use_nvml: bool) -> Vec<Gpu> {
    if use_nvml {
        if let Some(found) = from_nvml(root) {
            return found;
        }
    }
    from_sysfs(root)
}

fn from_nvml(root: &Path) -> Option<Vec<Gpu>> {
    let nvml = nvml_wrapper::Nvml::init().ok()?;
    let count = nvml.device_count().ok()?;
    let mut out = Vec::new();
    for index in 0..count {
        let dev = nvml.device_by_index(index).ok()?;
        let pci_bus = dev.pci_info().map(|p| short_bus_id(&p.bus_id)).unwrap_or_default();
        out.push(Gpu {
            index: index as usize,
            vendor: Vendor::Nvidia,
            name: dev.name().unwrap_or_else(|_| "NVIDIA GPU".into()),
            memory_bytes: dev.memory_info().ok().map(|m| m.total),
            numa_node: pci_numa_node(root, &pci_bus),
            pci_bus,
            source: "nvml",
        });
    }
    Some(out)
}

/// NVML writes an 8-digit PCI domain in upper case; sysfs a 4-digit one in lower case.
fn short_bus_id(nvml: &str) -> String {
    let lower = nvml.to_ascii_lowercase();
    match lower.split_once(':') {
        Some((domain, rest)) if domain.len() > 4 => format!("{}:{rest}", &domain[domain.len() - 4..]),
        _ => lower,
    }
}

fn from_sysfs(root: &Path) -> Vec<Gpu> {
    let dir = root.join("sys/bus/pci/devices");
    let read = |p: &Path| std::fs::read_to_string(p).map(|s| s.trim().to_string()).unwrap_or_default();
    let mut buses: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let class = read(&e.path().join("class"));
            read(&e.path().join("vendor")) == VENDOR_ID && (class.starts_with("0x0300") || class.starts_with("0x0302"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    buses.sort();
    buses
        .into_iter()
        .enumerate()
        .map(|(index, bus)| Gpu {
            index,
            vendor: Vendor::Nvidia,
            name: proc_model(root, &bus).unwrap_or_else(|| "NVIDIA GPU".into()),
            memory_bytes: None,
            numa_node: pci_numa_node(root, &bus),
            pci_bus: bus,
            source: "sysfs",
        })
        .collect()
}

/// The `Model:` line of `/proc/driver/nvidia/gpus/<bus>/information`.
fn proc_model(root: &Path, bus: &str) -> Option<String> {
    let info = std::fs::read_to_string(root.join("proc/driver/nvidia/gpus").join(bus).join("information")).ok()?;
    info.lines().find_map(|l| l.strip_prefix("Model:")).map(|m| m.trim().to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvml_bus_ids_match_sysfs() {
        assert_eq!(super::short_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
        assert_eq!(super::short_bus_id("0000:3b:00.0"), "0000:3b:00.0");
    }
}
