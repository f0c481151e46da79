//! The kinds of host mlb knows.

use crate::gpu::Vendor;
use serde::Serialize;

/// What a host is, which decides device variables and container images.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum HostKind {
    /// NVIDIA GPUs on x86_64 (or any non-POWER architecture).
    Ngc,
    /// AMD GPUs (ROCm).
    Rocm,
    /// NVIDIA GPUs on ppc64le.
    Powerai,
    /// No GPU.
    Cpu,
}

impl HostKind {
    /// The kind's name: `ngc`, `rocm`, `powerai`, `cpu`.
    pub fn as_str(self) -> &'static str {
        match self {
            HostKind::Ngc => "ngc",
            HostKind::Rocm => "rocm",
            HostKind::Powerai => "powerai",
            HostKind::Cpu => "cpu",
        }
    }

    /// The kind of a host with these GPUs on this architecture.
    pub fn classify(nvidia: usize, amd: usize, arch: &str) -> HostKind {
        if amd > 0 {
            HostKind::Rocm
        } else if nvidia > 0 && (arch == "ppc64le" || arch.starts_with("powerpc64")) {
            HostKind::Powerai
        } else if nvidia > 0 {
            HostKind::Ngc
        } else {
            HostKind::Cpu
        }
    }

    /// The vendor of this kind's GPUs (`None`: a CPU host).
    pub fn vendor(self) -> Option<Vendor> {
        match self {
            HostKind::Ngc | HostKind::Powerai => Some(Vendor::Nvidia),
            HostKind::Rocm => Some(Vendor::Amd),
            HostKind::Cpu => None,
        }
    }

    /// The variables that select visible devices on this kind of host: its
    /// vendor's; a CPU host's instances get `CUDA_VISIBLE_DEVICES`, as the
    /// original suite's did.
    pub fn device_vars(self) -> &'static [&'static str] {
        self.vendor().unwrap_or(Vendor::Nvidia).ops().visible_devices_vars()
    }
}

impl std::fmt::Display for HostKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert_eq!(HostKind::classify(4, 0, "x86_64"), HostKind::Ngc);
        assert_eq!(HostKind::classify(4, 0, "powerpc64"), HostKind::Powerai);
        assert_eq!(HostKind::classify(0, 2, "x86_64"), HostKind::Rocm);
        assert_eq!(HostKind::classify(0, 0, "ppc64le"), HostKind::Cpu);
        assert_eq!(HostKind::Rocm.device_vars(), ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]);
        assert_eq!(HostKind::Cpu.device_vars(), ["CUDA_VISIBLE_DEVICES"]);
    }
}
