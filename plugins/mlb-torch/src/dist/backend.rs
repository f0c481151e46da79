//! Which c10d backend a rank's group runs: NCCL when the model is on a GPU,
//! Gloo on the CPU, unless the workload's `backend` argument names one.

use std::fmt;
use tch::Device;

extern "C" {
    fn mlb_pg_has_nccl() -> std::ffi::c_int;
}

/// The backend of a group, with what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Gloo, whose collectives run on CPU tensors (GPU gradients are copied
    /// to the host and back), binding `interface` (`None`: the address the
    /// host's name resolves to).
    Gloo {
        /// The network interface Gloo binds.
        interface: Option<String>,
    },
    /// NCCL, whose collectives run on CUDA device `device` (libtorch_cuda).
    Nccl {
        /// The rank's CUDA device.
        device: usize,
    },
}

impl Backend {
    /// `gloo` or `nccl`, as reports write it.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Gloo { .. } => "gloo",
            Backend::Nccl { .. } => "nccl",
        }
    }

    /// The device the collectives take their tensors on.
    pub fn device(&self) -> Device {
        match self {
            Backend::Gloo { .. } => Device::Cpu,
            Backend::Nccl { device } => Device::Cuda(*device),
        }
    }
}

/// Whether this build of the plugin has NCCL (built against a libtorch
/// with `libtorch_cuda` and NCCL's headers, see `build.rs`).
pub fn nccl_built() -> bool {
    // SAFETY: a function without arguments or state.
    unsafe { mlb_pg_has_nccl() != 0 }
}

/// The `backend` argument: `auto` (the default), `gloo` or `nccl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// NCCL for a model on a GPU when the build has it, else Gloo.
    #[default]
    Auto,
    /// Gloo, whatever the device.
    Gloo,
    /// NCCL; a rank whose model is not on a GPU fails.
    Nccl,
}

impl Choice {
    /// Reads the argument (`None`: `auto`).
    pub fn parse(arg: Option<&str>) -> Result<Self, String> {
        match arg.unwrap_or("auto") {
            "auto" => Ok(Choice::Auto),
            "gloo" => Ok(Choice::Gloo),
            "nccl" => Ok(Choice::Nccl),
            other => Err(format!("argument `backend` must be one of auto, gloo, nccl, got {other:?}")),
        }
    }

    /// The backend of a rank whose model is on `device`, binding
    /// `interface` with Gloo, in a build that has NCCL or not
    /// (`nccl_built`). Asking for NCCL with a model on the CPU is an
    /// error naming the fix; whether the GPU exists is checked on joining.
    pub fn resolve(self, device: Device, interface: Option<String>, nccl_built: bool) -> Result<Backend, String> {
        match (self, device) {
            (Choice::Nccl, Device::Cuda(device)) => Ok(Backend::Nccl { device }),
            (Choice::Auto, Device::Cuda(device)) if nccl_built => Ok(Backend::Nccl { device }),
            (Choice::Nccl, other) => Err(format!(
                "argument `backend` is nccl, which needs the model on a GPU, and this rank runs on {other:?}; fix: \
                 run the job on a GPU (`--device cuda`), or set `backend` to `gloo` or `auto`"
            )),
            _ => Ok(Backend::Gloo { interface }),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_chooses_unless_the_argument_does() {
        let gloo = Backend::Gloo { interface: None };
        let auto = Choice::parse(None).unwrap();
        assert_eq!(auto.resolve(Device::Cpu, None, true), Ok(gloo.clone()));
        assert_eq!(auto.resolve(Device::Cuda(1), None, true), Ok(Backend::Nccl { device: 1 }));
        assert_eq!(auto.resolve(Device::Cuda(1), None, false), Ok(gloo.clone()), "a build without NCCL");
        let gloo_arg = Choice::parse(Some("gloo")).unwrap();
        assert_eq!(gloo_arg.resolve(Device::Cuda(0), None, true), Ok(gloo));
        let nccl = Choice::parse(Some("nccl")).unwrap();
        assert_eq!(nccl.resolve(Device::Cuda(0), None, false), Ok(Backend::Nccl { device: 0 }));
        let e = nccl.resolve(Device::Cpu, None, true).unwrap_err();
        assert!(e.contains("needs the model on a GPU") && e.contains("fix:"), "{e}");
        assert!(Choice::parse(Some("mpi")).unwrap_err().contains("auto, gloo, nccl"));
        assert_eq!(Backend::Nccl { device: 2 }.device(), Device::Cuda(2));
    }
}
