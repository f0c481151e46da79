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

    /// The kind of a host with GPUs of `vendor` (`None`: no GPU) on this
    /// architecture.
    pub fn classify(vendor: Option<Vendor>, arch: &str) -> HostKind {
        match vendor {
            Some(Vendor::Amd) => HostKind::Rocm,
            Some(Vendor::Nvidia) if arch == "ppc64le" || arch.starts_with("powerpc64") => HostKind::Powerai,
            Some(Vendor::Nvidia) => HostKind::Ngc,
            None => HostKind::Cpu,
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
        assert_eq!(HostKind::classify(Some(Vendor::Nvidia), "x86_64"), HostKind::Ngc);
        assert_eq!(HostKind::classify(Some(Vendor::Nvidia), "powerpc64"), HostKind::Powerai);
        assert_eq!(HostKind::classify(Some(Vendor::Amd), "x86_64"), HostKind::Rocm);
        assert_eq!(HostKind::classify(None, "ppc64le"), HostKind::Cpu);
        for kind in [HostKind::Ngc, HostKind::Rocm, HostKind::Powerai, HostKind::Cpu] {
            let arch = if kind == HostKind::Powerai { "ppc64le" } else { "x86_64" };
            assert_eq!(HostKind::classify(kind.vendor(), arch), kind, "a kind's vendor classifies back to it");
        }
        assert_eq!(HostKind::Rocm.device_vars(), ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"]);
        assert_eq!(HostKind::Cpu.device_vars(), ["CUDA_VISIBLE_DEVICES"]);
    }
}
