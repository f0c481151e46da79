//! Usable memory: the machine's, or less when an enclosing cgroup limits it
//! (the launcher sizes slots with it).

use crate::linux::memory_cgroup_at;
use serde::Serialize;
use std::path::Path;

/// How much memory this process may use and what bounds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// `MemTotal` of the machine, bytes.
    pub total_bytes: u64,
    /// The limit of the cgroup enclosing this process, when there is one.
    pub cgroup_limit_bytes: Option<u64>,
    /// `min(total, cgroup limit)`.
    pub usable_bytes: u64,
}

/// Reads `proc/meminfo` and this process's memory cgroup under `root`.
pub fn usable(root: &Path) -> Memory {
    let meminfo = std::fs::read_to_string(root.join("proc/meminfo")).unwrap_or_default();
    let total_bytes = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024);
    let own = std::fs::read_to_string(root.join("proc/self/cgroup")).unwrap_or_default();
    let (_, cgroup_limit_bytes) = memory_cgroup_at(&root.join("sys/fs/cgroup"), &own);
    let usable_bytes = cgroup_limit_bytes.map_or(total_bytes, |l| l.min(total_bytes));
    Memory { total_bytes, cgroup_limit_bytes, usable_bytes }
}
