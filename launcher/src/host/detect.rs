//! Host detection, read under a root path so fixture trees stand in for
//! real hosts in tests.

use super::gpu::{Gpu, Vendor};
use super::kind::HostKind;
use super::memory::{self, Memory};
use super::numa::{self, NumaNode};
use super::{amd, nvidia};
use crate::isolation::support::{self, Support};
use serde::Serialize;
use std::path::PathBuf;

/// Where and how to look.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Root of the filesystem to read (`/` on the real host).
    pub root: PathBuf,
    /// CPU architecture (`x86_64`, `powerpc64`...).
    pub arch: String,
    /// The CPUs this process may use (its affinity mask).
    pub affinity: Vec<usize>,
    /// Ask NVML (only meaningful on the real host).
    pub nvml: bool,
    /// Effective user id.
    pub euid: u32,
}

impl Probe {
    /// This host, as this process sees it.
    pub fn this_host() -> Self {
        Probe {
            root: PathBuf::from("/"),
            arch: std::env::consts::ARCH.to_string(),
            affinity: crate::worker::provenance::affinity_cpus(),
            nvml: true,
            euid: nix::unistd::Uid::effective().as_raw(),
        }
    }

    /// This host, or the fixture tree at `root` (read without NVML).
    pub fn under(root: Option<PathBuf>) -> Self {
        match root {
            Some(root) => Probe { root, nvml: false, ..Probe::this_host() },
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

/// Detects the host described by `probe`.
pub fn detect(probe: &Probe) -> Host {
    let mut gpus = amd::gpus(&probe.root);
    if gpus.is_empty() {
        gpus = nvidia::gpus(&probe.root, probe.nvml);
    }
    let count = |v: Vendor| gpus.iter().filter(|g| g.vendor == v).count();
    let kind = HostKind::classify(count(Vendor::Nvidia), count(Vendor::Amd), &probe.arch);
    Host {
        kind,
        kind_overridden: false,
        arch: probe.arch.clone(),
        cpus: probe.affinity.clone(),
        memory: memory::usable(&probe.root),
        numa: numa::nodes(&probe.root, &probe.affinity),
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
