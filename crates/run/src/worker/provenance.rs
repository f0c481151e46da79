//! What an instance actually got, read from inside it: the CPUs of its
//! affinity mask, the memory limit of its own cgroup, and what the launcher
//! says about isolation, host and container (through the `MLB_*` variables
//! of [`contract::env`](mlb_record::contract::env)), and the heap policy it ran
//! under.

use super::heap::HeapPolicy;
use crate::linux::{cpulist, memory_cgroup};
use mlb_record::contract::env::Announced;
use mlb_record::contract::isolation::Isolation;
use mlb_record::contract::{PluginBuild, Provenance, SlurmTask};

/// The provenance of this worker's report: what it sees of itself, and
/// what the launcher announced in its environment.
pub fn collect(plugin: PluginBuild, threads: u32, heap: HeapPolicy) -> Provenance {
    let cpus = cpulist::affinity();
    let (cgroup, memory_limit) = memory_cgroup();
    let told = Announced::read(|name| std::env::var(name).ok());
    let isolation = told.isolation.unwrap_or(Isolation::None.into());
    let slurm = isolation.applied() == Some(Isolation::Slurm);
    Provenance {
        cpus: cpulist::format(&cpus),
        cpu_count: cpus.len(),
        memory_limit_bytes: memory_limit,
        cgroup: told.cgroup.or(cgroup),
        isolation,
        host_kind: told.host_kind.unwrap_or_else(|| "unknown".into()),
        container: told.container,
        threads: Some(threads),
        heap: Some(heap.as_str().into()),
        mlb_version: Provenance::MLB_VERSION.into(),
        plugin: Some(plugin),
        written_by: None,
        slurm: SlurmTask::read(|name| std::env::var(name).ok()).filter(|_| slurm),
    }
}
