//! Slots: what each instance of a `student` job gets (docs/launcher.md, "The host and its slots").

use crate::host::Host;
use crate::isolation::Slot;
use mlb_record::fix::Fix;

/// Memory limits are whole pages.
const PAGE: u64 = 4096;

/// Why slots cannot be planned.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    /// More slots than usable CPUs.
    #[error("{slots} slots need at least one CPU each, but this process may use {cpus} CPUs")]
    TooFewCpus {
        /// Slots asked for.
        slots: usize,
        /// Usable CPUs.
        cpus: usize,
    },
    /// `--devices` asks for more GPUs than the host has.
    #[error("--devices {asked} asks for more GPUs than this host has ({have})")]
    TooManyDevices {
        /// Asked for.
        asked: usize,
        /// Present.
        have: usize,
    },
    /// `--devices 0`.
    #[error("--devices must be at least 1")]
    Zero,
}

impl Fix for SlotError {
    fn fix(&self) -> Option<String> {
        match self {
            SlotError::TooFewCpus { .. } => Some("lower --devices or widen the CPU affinity".into()),
            SlotError::TooManyDevices { .. } | SlotError::Zero => None,
        }
    }
}

/// The number of slots: the host's GPUs (or the first `devices` of them),
/// or `devices` (default 1) on a host without GPU.
pub fn count(host: &Host, devices: Option<usize>) -> Result<usize, SlotError> {
    match (host.gpus.len(), devices) {
        (_, Some(0)) => Err(SlotError::Zero),
        (0, d) => Ok(d.unwrap_or(1)),
        (have, Some(asked)) if asked > have => Err(SlotError::TooManyDevices { asked, have }),
        (have, d) => Ok(d.unwrap_or(have)),
    }
}

/// Plans `n` slots: slot i gets `usable/n` CPUs, taken from its GPU's NUMA
/// node when the topology says where the GPU is and that node has enough free
/// usable CPUs, else the next free ones; every NUMA node; `usable memory / n`.
pub fn plan(host: &Host, n: usize) -> Result<Vec<Slot>, SlotError> {
    let per = host.cpus.len() / n.max(1);
    if n == 0 || per == 0 {
        return Err(SlotError::TooFewCpus { slots: n, cpus: host.cpus.len() });
    }
    let mems: Vec<usize> = host.numa.iter().map(|node| node.id).collect();
    let memory_bytes = host.memory.usable_bytes / n as u64 / PAGE * PAGE;
    let mut free: Vec<usize> = host.cpus.clone();
    let mut out = Vec::with_capacity(n);
    for index in 0..n {
        let node = host.gpus.get(index).and_then(|g| g.numa_node);
        let local: Vec<usize> = free.iter().copied().filter(|&c| node.is_some() && host.node_of(c) == node).collect();
        let pool = if local.len() >= per { local } else { free.clone() };
        let cpus: Vec<usize> = pool.into_iter().take(per).collect();
        free.retain(|c| !cpus.contains(c));
        out.push(Slot { index, device: index.into(), cpus, mems: mems.clone(), memory_bytes });
    }
    Ok(out)
}
