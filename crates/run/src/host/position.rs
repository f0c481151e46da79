//! Where a slot sits on the host: its CPUs and their NUMA nodes, its GPU,
//! the GPU's PCI address and the PCIe switch above it. Two slots under one
//! switch, or on one NUMA node, share more than two slots apart: what
//! `mlb interfere` records beside each slowdown (docs/interfere.md).

use super::Host;
use crate::isolation::Slot;
use crate::linux::cpulist;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A slot's place on the host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The slot's index.
    pub slot: usize,
    /// Its CPUs, as a CPU list (`0-3`).
    pub cpus: String,
    /// The NUMA nodes its CPUs are on.
    pub numa_nodes: Vec<usize>,
    /// Its device index (the visible-devices value).
    pub gpu: u32,
    /// The GPU's PCI address; none on a host without GPU.
    pub pci_address: Option<String>,
    /// The PCI address of the bridge the GPU hangs from (the downstream
    /// port of its PCIe switch, or its root port); none without a GPU, or
    /// when sysfs does not show it.
    pub pcie_switch: Option<String>,
}

impl Position {
    /// The position of `slot` on `host`, its PCI topology read under `root`
    /// (`/` on the real host).
    pub fn of(host: &Host, slot: &Slot, root: &Path) -> Position {
        let gpu = host.gpus.iter().find(|g| g.index == slot.device);
        let pci_address = gpu.map(|g| g.pci_bus.clone()).filter(|a| !a.is_empty());
        let pcie_switch = pci_address.as_deref().and_then(|a| upstream_bridge(root, a));
        let numa_nodes =
            host.numa.iter().filter(|n| n.cpus.iter().any(|c| slot.cpus.contains(c))).map(|n| n.id).collect();
        Position {
            slot: slot.index,
            cpus: cpulist::format(&slot.cpus),
            numa_nodes,
            gpu: slot.device.0,
            pci_address,
            pcie_switch,
        }
    }
}

/// The PCI device above `address` in sysfs: `sys/bus/pci/devices/ADDRESS`
/// links to its place in the tree (`.../0000:00:01.0/0000:01:00.0/0000:02:00.0`),
/// whose parent folder is the bridge it hangs from; none when that parent
/// is the PCI root (`pci0000:00`) or the link cannot be read.
pub fn upstream_bridge(root: &Path, address: &str) -> Option<String> {
    let link = root.join("sys/bus/pci/devices").join(address.to_ascii_lowercase());
    let target = std::fs::canonicalize(link).ok()?;
    let parent = target.parent()?.file_name()?.to_str()?;
    is_pci_address(parent).then(|| parent.to_string())
}

/// Whether `name` reads as a PCI address `dddd:bb:dd.f`.
fn is_pci_address(name: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit());
    let mut parts = name.split(':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(domain), Some(bus), Some(rest), None) => {
            hex(domain, 4) && hex(bus, 2) && rest.split_once('.').is_some_and(|(d, f)| hex(d, 2) && hex(f, 1))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_is_the_parent_of_the_device_in_the_pci_tree() {
        let root = tempfile::tempdir().unwrap();
        let tree = root.path().join("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0");
        std::fs::create_dir_all(&tree).unwrap();
        let on_root = root.path().join("sys/devices/pci0000:00/0000:00:02.0");
        std::fs::create_dir_all(&on_root).unwrap();
        let devices = root.path().join("sys/bus/pci/devices");
        std::fs::create_dir_all(&devices).unwrap();
        std::os::unix::fs::symlink(&tree, devices.join("0000:02:00.0")).unwrap();
        std::os::unix::fs::symlink(&on_root, devices.join("0000:00:02.0")).unwrap();
        assert_eq!(upstream_bridge(root.path(), "0000:02:00.0").as_deref(), Some("0000:01:00.0"));
        assert_eq!(upstream_bridge(root.path(), "0000:02:00.0".to_uppercase().as_str()), Some("0000:01:00.0".into()));
        assert_eq!(upstream_bridge(root.path(), "0000:00:02.0"), None, "on the root complex: no bridge");
        assert_eq!(upstream_bridge(root.path(), "0000:09:00.0"), None, "no such device");
    }

    #[test]
    fn pci_addresses_are_told_from_other_names() {
        assert!(is_pci_address("0000:3b:00.0") && is_pci_address("abcd:ff:1f.7"));
        for not in ["pci0000:00", "0000:3b:00", "0000:3b:00.0.1", "00:3b:00.0", "zzzz:3b:00.0"] {
            assert!(!is_pci_address(not), "{not}");
        }
    }
}
