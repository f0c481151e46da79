//! AMD GPUs from the KFD topology (`/sys/class/kfd/kfd/topology/nodes`) and
//! the DRM render nodes.

use super::gpu::{pci_numa_node, Gpu, Vendor};
use std::collections::HashMap;
use std::path::Path;

/// AMD GPUs of the host under `root`, in KFD node order (the HIP device order).
pub fn gpus(root: &Path) -> Vec<Gpu> {
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
            index: out.len(),
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
