//! `mlb detect` output.

use super::detect::Host;
use crate::linux::cpulist;
use mlb_present::{Body, Cell, Document};

/// Bytes as GiB with two decimals.
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// The host as a document: its kind, CPUs, memory and cgroups; then a
/// table of its GPUs and one of its NUMA nodes.
pub fn document(host: &Host) -> Document {
    let forced = if host.kind_overridden { " (forced with --host)" } else { "" };
    let limit = host.memory.cgroup_limit_bytes.map_or_else(String::new, |l| format!(", cgroup limit {}", gib(l)));
    let can = match &host.cgroup.reason {
        None => "mlb can create groups".to_string(),
        Some(why) => format!("mlb cannot create groups: {why}"),
    };
    let pairs = [
        ("host kind", format!("{}{forced}", host.kind)),
        ("architecture", host.arch.clone()),
        ("GPUs", host.gpus.len().to_string()),
        ("usable CPUs", format!("{} ({})", host.cpus.len(), cpulist::format(&host.cpus))),
        (
            "usable memory",
            format!("{} (machine {}{limit})", gib(host.memory.usable_bytes), gib(host.memory.total_bytes)),
        ),
        ("NUMA nodes", host.numa.len().to_string()),
        ("cgroups", format!("{} at {}; {can}", host.cgroup.version.isolation(), host.cgroup.mount.display())),
    ];
    let mut document = Document::new("mlb detect");
    document.push("Host", Body::Pairs(pairs.into_iter().map(|(k, v)| (k.to_string(), v.into())).collect()));
    if !host.gpus.is_empty() {
        let rows = host
            .gpus
            .iter()
            .map(|g| {
                let memory = g.memory_bytes.map_or_else(|| "unknown".to_string(), gib);
                let node = g.numa_node.map_or_else(|| "-".to_string(), |n| n.to_string());
                let cells =
                    [g.index.to_string(), g.name.clone(), memory, node, g.pci_bus.clone(), g.source.to_string()];
                cells.into_iter().map(Cell::from).collect()
            })
            .collect();
        document.push("GPUs", Body::table(["index", "name", "memory", "NUMA node", "PCI", "via"], rows));
    }
    let rows = host.numa.iter().map(|n| vec![n.id.to_string().into(), cpulist::format(&n.cpus).into()]).collect();
    document.push("NUMA nodes", Body::table(["node", "CPUs"], rows));
    document
}

/// The host as pretty JSON.
pub fn json(host: &Host) -> String {
    serde_json::to_string_pretty(host).expect("a host serialises")
}
