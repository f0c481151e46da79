//! `mlb detect` output.

use super::detect::Host;
use crate::linux::cpulist;

/// Bytes as GiB with two decimals.
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// The host as indented text for a person.
pub fn human(host: &Host) -> String {
    let mut out = String::new();
    let forced = if host.kind_overridden { " (forced with --host)" } else { "" };
    out.push_str(&format!("host kind      {}{forced}\n", host.kind));
    out.push_str(&format!("architecture   {}\n", host.arch));
    out.push_str(&format!("GPUs           {}\n", host.gpus.len()));
    for g in &host.gpus {
        let mem = g.memory_bytes.map_or_else(|| "memory unknown".to_string(), gib);
        let node = g.numa_node.map_or_else(|| "-".to_string(), |n| n.to_string());
        out.push_str(&format!(
            "  [{}] {} | {mem} | NUMA node {node} | PCI {} | via {}\n",
            g.index, g.name, g.pci_bus, g.source
        ));
    }
    out.push_str(&format!("usable CPUs    {} ({})\n", host.cpus.len(), cpulist::format(&host.cpus)));
    let limit = host.memory.cgroup_limit_bytes.map_or_else(String::new, |l| format!(", cgroup limit {}", gib(l)));
    out.push_str(&format!(
        "usable memory  {} (machine {}{limit})\n",
        gib(host.memory.usable_bytes),
        gib(host.memory.total_bytes)
    ));
    out.push_str(&format!("NUMA nodes     {}\n", host.numa.len()));
    for n in &host.numa {
        out.push_str(&format!("  node {}: CPUs {}\n", n.id, cpulist::format(&n.cpus)));
    }
    let can = match &host.cgroup.reason {
        None => "mlb can create groups".to_string(),
        Some(why) => format!("mlb cannot create groups: {why}"),
    };
    out.push_str(&format!(
        "cgroups        {} at {}; {can}\n",
        host.cgroup.version.isolation(),
        host.cgroup.mount.display()
    ));
    out
}

/// The host as pretty JSON.
pub fn json(host: &Host) -> String {
    serde_json::to_string_pretty(host).expect("a host serialises")
}
