//! The Slurm allocation `mlb --slurm` runs in, read from the variables
//! `salloc`/`sbatch` set: its job, nodes, CPUs, memory and GPUs per node;
//! and the slots it holds on each node.

use super::error::SlurmError;
use crate::isolation::Slot;
use std::process::Command;

/// An allocation, as its environment describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// `SLURM_JOB_ID`.
    pub job_id: String,
    /// Its nodes, expanded (`n[1-2]` gives `n1`, `n2`), in Slurm's order.
    pub nodes: Vec<String>,
    /// CPUs on the node with the fewest (`SLURM_JOB_CPUS_PER_NODE`).
    pub cpus_per_node: usize,
    /// Memory per node, bytes (`SLURM_MEM_PER_NODE`, or `SLURM_MEM_PER_CPU`
    /// times the CPUs); `None` when the allocation states none.
    pub memory_per_node: Option<u64>,
    /// GPUs per node (`SLURM_GPUS_PER_NODE`, `SLURM_GPUS_ON_NODE`); 0 on CPU nodes.
    pub gpus_per_node: usize,
}

impl Allocation {
    /// The allocation of this process, read through `var`; nodes are
    /// expanded with `scontrol show hostnames`.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Self, SlurmError> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let job_id = var("SLURM_JOB_ID").ok_or(SlurmError::NotInAllocation)?;
        let list = var("SLURM_JOB_NODELIST")
            .or_else(|| var("SLURM_NODELIST"))
            .ok_or(SlurmError::Missing { name: "SLURM_JOB_NODELIST" })?;
        let nodes = expand_nodes(&list)?;
        let cpus = var("SLURM_JOB_CPUS_PER_NODE").ok_or(SlurmError::Missing { name: "SLURM_JOB_CPUS_PER_NODE" })?;
        let cpus_per_node = cpus_per_node(&cpus)
            .ok_or_else(|| SlurmError::Unreadable { name: "SLURM_JOB_CPUS_PER_NODE", value: cpus.clone() })?;
        let mib = |name: &'static str| -> Result<Option<u64>, SlurmError> {
            var(name)
                .map(|v| v.trim().parse::<u64>().map_err(|_| SlurmError::Unreadable { name, value: v.clone() }))
                .transpose()
        };
        let memory_per_node = match (mib("SLURM_MEM_PER_NODE")?, mib("SLURM_MEM_PER_CPU")?) {
            (Some(node), _) => Some(node << 20),
            (None, Some(cpu)) => Some((cpu * cpus_per_node as u64) << 20),
            (None, None) => None,
        };
        let gpus_per_node =
            var("SLURM_GPUS_PER_NODE").or_else(|| var("SLURM_GPUS_ON_NODE")).map_or(0, |v| gpu_count(&v));
        Ok(Allocation { job_id, nodes, cpus_per_node, memory_per_node, gpus_per_node })
    }

    /// The slots of each node: one per GPU (the first `devices` of them when
    /// given), or `devices` (default 1) on CPU nodes; each with its share of
    /// the node's CPUs and memory. Refused when the allocation cannot hold them.
    pub fn slots(&self, devices: Option<usize>, fallback_memory: u64) -> Result<Vec<Slot>, SlurmError> {
        let n = match (self.gpus_per_node, devices) {
            (_, Some(0)) => return Err(SlurmError::NoSlots),
            (0, d) => d.unwrap_or(1),
            (have, Some(asked)) if asked > have => {
                return Err(SlurmError::MoreSlotsThanGpus { asked, have, job: self.job_id.clone() })
            }
            (have, d) => d.unwrap_or(have),
        };
        let per = self.cpus_per_node / n;
        if per == 0 {
            return Err(SlurmError::MoreSlotsThanCpus { slots: n, cpus: self.cpus_per_node, job: self.job_id.clone() });
        }
        let memory = self.memory_per_node.unwrap_or(fallback_memory) / n as u64;
        Ok((0..n)
            .map(|index| Slot {
                index,
                device: index.into(),
                cpus: (index * per..(index + 1) * per).collect(),
                mems: Vec::new(),
                memory_bytes: memory,
            })
            .collect())
    }
}

/// `n[1-3],gpu7` as node names, with `scontrol show hostnames`.
fn expand_nodes(list: &str) -> Result<Vec<String>, SlurmError> {
    let out = Command::new("scontrol")
        .args(["show", "hostnames", list])
        .output()
        .map_err(|e| SlurmError::Tool { tool: "scontrol", message: e.to_string() })?;
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(SlurmError::Tool { tool: "scontrol", message });
    }
    let nodes: Vec<String> = String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_string).collect();
    if nodes.is_empty() {
        return Err(SlurmError::Unreadable { name: "SLURM_JOB_NODELIST", value: list.into() });
    }
    Ok(nodes)
}

/// The fewest CPUs of any node in `2(x3),1`: Slurm's counts with repeats.
fn cpus_per_node(text: &str) -> Option<usize> {
    text.split(',')
        .map(|part| {
            let count = part.split('(').next()?.trim();
            count.parse::<usize>().ok()
        })
        .collect::<Option<Vec<usize>>>()?
        .into_iter()
        .min()
}

/// GPUs in `2`, `a100:2` or `gpu:a100:2`; 0 when unreadable.
fn gpu_count(text: &str) -> usize {
    text.split(',').filter_map(|part| part.rsplit(':').next()?.trim().parse::<usize>().ok()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_as_slurm_writes_them() {
        assert_eq!(cpus_per_node("2(x2)"), Some(2));
        assert_eq!(cpus_per_node("8,4(x3)"), Some(4));
        assert_eq!(cpus_per_node("x"), None);
        assert_eq!(gpu_count("4"), 4);
        assert_eq!(gpu_count("a100:2"), 2);
        assert_eq!(gpu_count("gpu:h100:8"), 8);
        assert_eq!(gpu_count(""), 0);
    }

    fn alloc(cpus: usize, gpus: usize) -> Allocation {
        Allocation {
            job_id: "7".into(),
            nodes: vec!["n1".into(), "n2".into()],
            cpus_per_node: cpus,
            memory_per_node: Some(8 << 30),
            gpus_per_node: gpus,
        }
    }

    #[test]
    fn slots_share_a_node() {
        let slots = alloc(8, 4).slots(None, 0).unwrap();
        assert_eq!(slots.len(), 4);
        assert_eq!(slots[3].cpus, vec![6, 7]);
        assert_eq!(slots[1].memory_bytes, 2 << 30);
        assert_eq!(alloc(2, 0).slots(Some(2), 0).unwrap().len(), 2);
        assert!(matches!(alloc(1, 0).slots(Some(2), 0), Err(SlurmError::MoreSlotsThanCpus { slots: 2, cpus: 1, .. })));
        assert!(matches!(alloc(8, 2).slots(Some(3), 0), Err(SlurmError::MoreSlotsThanGpus { asked: 3, have: 2, .. })));
    }

    #[test]
    fn outside_an_allocation() {
        assert!(matches!(Allocation::from_env(|_| None), Err(SlurmError::NotInAllocation)));
    }
}
