//! NUMA nodes and their CPUs, from `sys/devices/system/node`.

use crate::linux::cpulist;
use serde::Serialize;
use std::path::Path;

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NumaNode {
    /// Node id.
    pub id: usize,
    /// Its CPUs (all of them, usable or not).
    pub cpus: Vec<usize>,
}

/// The NUMA nodes under `root`; one node 0 holding `fallback_cpus` when the
/// kernel exposes none.
pub fn nodes(root: &Path, fallback_cpus: &[usize]) -> Vec<NumaNode> {
    let dir = root.join("sys/devices/system/node");
    let mut out: Vec<NumaNode> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_prefix("node")?.parse().ok()?;
            let cpus = cpulist::parse(&std::fs::read_to_string(e.path().join("cpulist")).unwrap_or_default());
            Some(NumaNode { id, cpus })
        })
        .collect();
    out.sort_by_key(|n| n.id);
    if out.is_empty() {
        out.push(NumaNode { id: 0, cpus: fallback_cpus.to_vec() });
    }
    out
}
