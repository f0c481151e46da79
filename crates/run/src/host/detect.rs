//! Host detection, read under a root path so fixture trees stand in for
//! real hosts in tests.

use super::kind::HostKind;
use super::memory::{self, Memory};
use super::numa::{self, NumaNode};
use crate::gpu::{self, Gpu};
use crate::isolation::support::{self, Support};
use crate::linux::cpulist;
use serde::Serialize;
use std::path::PathBuf;

/// Where and how to look.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Root of the filesystem to read (`/` on the real host).
    pub root: PathBuf,
    /// CPU architecture (`x86_64`, `powerpc64`...), unless the tree says
    /// otherwise in `proc/sys/kernel/arch`.
    pub arch: String,
    /// The CPUs this process may use (its affinity mask), unless the tree
    /// says otherwise in `proc/self/status` (`Cpus_allowed_list`).
    pub affinity: Vec<usize>,
    /// Ask the GPU vendors' management libraries (NVML; only meaningful on
    /// the real host).
    pub library: bool,
    /// Effective user id.
    pub euid: u32,
}

impl Probe {
    /// This host, as this process sees it.
    pub fn this_host() -> Self {
        Probe {
            root: PathBuf::from("/"),
            arch: std::env::consts::ARCH.to_string(),
            affinity: cpulist::affinity(),
            library: true,
            euid: nix::unistd::Uid::effective().as_raw(),
        }
    }

    /// This host, or the fixture tree at `root` (read without the vendors' libraries).
    pub fn under(root: Option<PathBuf>) -> Self {
        match root {
            Some(root) => Probe { root, library: false, ..Probe::this_host() },
            None => Probe::this_host(),
        }
    }
}

/// Everything mlb needs to know about a host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Host {
    /// What kind of host.
    pub kind: HostKind,
    /// True when `kind` was forced with `--host`.
    pub kind_overridden: bool,
    /// CPU architecture.
    pub arch: String,
    /// GPUs, in runtime order.
    pub gpus: Vec<Gpu>,
    /// CPUs this process may use.
    pub cpus: Vec<usize>,
    /// Memory this process may use.
    pub memory: Memory,
    /// NUMA nodes.
    pub numa: Vec<NumaNode>,
    /// cgroup layout and whether groups can be made.
    pub cgroup: Support,
}

/// The usable CPUs: `Cpus_allowed_list` of `proc/self/status` under the
/// root (the affinity mask on a real host), else the probe's affinity.
fn usable_cpus(probe: &Probe) -> Vec<usize> {
    let status = std::fs::read_to_string(probe.root.join("proc/self/status")).unwrap_or_default();
    let listed = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).map(cpulist::parse);
    listed.filter(|c| !c.is_empty()).unwrap_or_else(|| probe.affinity.clone())
}

/// Detects the host described by `probe`.
pub fn detect(probe: &Probe) -> Host {
    let cpus = usable_cpus(probe);
    let arch = std::fs::read_to_string(probe.root.join("proc/sys/kernel/arch"))
        .map(|a| a.trim().to_string())
        .ok()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| probe.arch.clone());
    let gpus = gpu::detect(&probe.root, probe.library);
    let kind = HostKind::classify(gpu::vendor_of(&gpus), &arch);
    Host {
        kind,
        kind_overridden: false,
        arch,
        numa: numa::nodes(&probe.root, &cpus),
        cpus,
        memory: memory::usable(&probe.root),
        cgroup: support::probe(&probe.root, probe.euid),
        gpus,
    }
}

impl Host {
    /// The host with its kind forced (`--host KIND`).
    pub fn with_kind(mut self, kind: Option<HostKind>) -> Self {
        if let Some(k) = kind {
            self.kind_overridden = k != self.kind;
            self.kind = k;
        }
        self
    }

    /// The NUMA node holding `cpu`.
    pub fn node_of(&self, cpu: usize) -> Option<usize> {
        self.numa.iter().find(|n| n.cpus.contains(&cpu)).map(|n| n.id)
    }
}
