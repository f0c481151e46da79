//! The system description and how it is filled in.

use crate::gpu::vendor_of;
use crate::host::Host;
use mlb_record::contract::Container;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file's name in the output folder.
pub const FILE: &str = mlb_record::contract::SYSTEM_FILE;

/// A system description: MLPerf `system_desc` fields (what mlb cannot know,
/// such as the submitter, is left out), and mlb's own beside them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SystemDesc {
    /// The host's name.
    pub system_name: String,
    /// Nodes the run spans (1, or the Slurm allocation's).
    pub number_of_nodes: usize,
    /// `model name` of `/proc/cpuinfo`.
    pub host_processor_model_name: String,
    /// Sockets (distinct `physical id`s).
    pub host_processors_per_node: usize,
    /// Physical cores of a socket.
    pub host_processor_core_count: usize,
    /// Logical CPUs this run may use.
    pub host_processor_vcpu_count: usize,
    /// `MemTotal`, as `512 GB`.
    pub host_memory_capacity: String,
    /// The first GPU's model (`none` on a CPU host).
    pub accelerator_model_name: String,
    /// GPUs of the node.
    pub accelerators_per_node: usize,
    /// The first GPU's memory, as `80 GB`.
    pub accelerator_memory_capacity: String,
    /// How the GPUs reach the host (`PCIe`).
    pub accelerator_host_interconnect: String,
    /// The GPUs' NUMA placement, `gpu0:node0 gpu1:node1`.
    pub accelerator_interconnect_topology: String,
    /// `PRETTY_NAME` of `/etc/os-release`.
    pub operating_system: String,
    /// The kernel's release.
    pub kernel: String,
    /// The NVIDIA driver's version (NVML), or the AMD one (`/sys/module/amdgpu/version`).
    pub accelerator_driver_version: String,
    /// CUDA's version the driver supports (NVML), or ROCm's (`/opt/rocm/.info/version`).
    pub cuda_or_rocm_version: String,
    /// The framework: libtorch, linked by the plugins (its version is in
    /// each plugin's build, not known to the launcher).
    pub framework: String,
    /// mlb's version.
    pub other_software_stack: String,
    /// The container image and digest, when the run uses one.
    pub container: Option<Container>,
    /// The vendors' diagnostics `mlb doctor --diag` ran, every test's result
    /// as reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::gpu::Diagnostic>,
}

/// Describes `host` (read under `root`, `/` on a real host) for a run
/// over `nodes` nodes in `container`.
pub fn describe(host: &Host, root: &Path, nodes: usize, container: Option<Container>) -> SystemDesc {
    let cpuinfo = std::fs::read_to_string(root.join("proc/cpuinfo")).unwrap_or_default();
    let field = |key: &str| cpuinfo_field(&cpuinfo, key);
    let mut sockets = field("physical id");
    sockets.sort();
    sockets.dedup();
    let gpu = host.gpus.first();
    let (driver, cuda) = vendor_of(&host.gpus).map(|v| v.ops().versions(root)).unwrap_or_default();
    SystemDesc {
        system_name: nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default(),
        number_of_nodes: nodes.max(1),
        host_processor_model_name: processor_model(&cpuinfo),
        host_processors_per_node: sockets.len().max(1),
        host_processor_core_count: field("cpu cores").first().and_then(|c| c.parse().ok()).unwrap_or(0),
        host_processor_vcpu_count: host.cpus.len(),
        host_memory_capacity: gigabytes(host.memory.total_bytes),
        accelerator_model_name: gpu.map_or_else(|| "none".into(), |g| g.name.clone()),
        accelerators_per_node: host.gpus.len(),
        accelerator_memory_capacity: gpu.and_then(|g| g.memory_bytes).map(gigabytes).unwrap_or_default(),
        accelerator_host_interconnect: if host.gpus.is_empty() { String::new() } else { "PCIe".into() },
        accelerator_interconnect_topology: host
            .gpus
            .iter()
            .map(|g| format!("gpu{}:node{}", g.index, g.numa_node.map_or("?".into(), |n| n.to_string())))
            .collect::<Vec<_>>()
            .join(" "),
        operating_system: os_release(root),
        kernel: std::fs::read_to_string(root.join("proc/sys/kernel/osrelease")).unwrap_or_default().trim().into(),
        accelerator_driver_version: driver,
        cuda_or_rocm_version: cuda,
        framework: "libtorch (tch)".into(),
        other_software_stack: format!("mlb {}", env!("CARGO_PKG_VERSION")),
        container,
        diagnostics: Vec::new(),
    }
}

/// Every value of `key` in `/proc/cpuinfo`'s text, in order.
fn cpuinfo_field(cpuinfo: &str, key: &str) -> Vec<String> {
    cpuinfo
        .lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_string())
        .collect()
}

/// The processor's model in `/proc/cpuinfo`'s text: its `model name` (x86),
/// else its `cpu` (POWER); empty when it names none.
pub fn processor_model(cpuinfo: &str) -> String {
    let mut names = cpuinfo_field(cpuinfo, "model name").into_iter().chain(cpuinfo_field(cpuinfo, "cpu"));
    names.next().unwrap_or_default()
}

/// `PRETTY_NAME` of `etc/os-release`.
fn os_release(root: &Path) -> String {
    let text = std::fs::read_to_string(root.join("etc/os-release")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_default()
}

/// Bytes as whole gigabytes (GiB), `80 GB`, MLPerf's way of writing them.
fn gigabytes(bytes: u64) -> String {
    format!("{} GB", (bytes as f64 / (1u64 << 30) as f64).round())
}

/// Writes `desc` as `system.json` in `dir`.
pub fn write(dir: &Path, desc: &SystemDesc) -> std::io::Result<PathBuf> {
    let value = serde_json::to_value(desc).expect("a system description serialises");
    mlb_record::contract::record::write_atomic(dir, FILE, &value)
}

/// The description in `dir`, when there is one.
pub fn read(dir: &Path) -> Option<SystemDesc> {
    serde_json::from_str(&std::fs::read_to_string(dir.join(FILE)).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{detect, Probe};

    #[test]
    fn a_fixture_host_is_described_and_read_back() {
        let root = tempfile::tempdir().unwrap();
        let put = |p: &str, text: &str| {
            let p = root.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put(
            "proc/cpuinfo",
            "processor\t: 0\nmodel name\t: Test CPU 9000\nphysical id\t: 0\ncpu cores\t: 8\n\nprocessor\t: 1\nmodel name\t: Test CPU 9000\nphysical id\t: 1\ncpu cores\t: 8\n",
        );
        put("proc/meminfo", "MemTotal:       16777216 kB\n");
        put("etc/os-release", "NAME=\"Test\"\nPRETTY_NAME=\"Test Linux 1\"\n");
        put("proc/sys/kernel/osrelease", "6.1.0-test\n");
        let host = detect(&Probe::under(Some(root.path().to_path_buf())));
        let d = describe(&host, root.path(), 2, None);
        assert_eq!(d.host_processor_model_name, "Test CPU 9000");
        assert_eq!((d.host_processors_per_node, d.host_processor_core_count), (2, 8));
        assert_eq!(d.host_memory_capacity, "16 GB");
        assert_eq!((d.operating_system.as_str(), d.kernel.as_str()), ("Test Linux 1", "6.1.0-test"));
        assert_eq!((d.accelerator_model_name.as_str(), d.accelerators_per_node, d.number_of_nodes), ("none", 0, 2));
        let out = tempfile::tempdir().unwrap();
        write(out.path(), &d).unwrap();
        assert_eq!(read(out.path()), Some(d));
    }
}
