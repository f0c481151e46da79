//! Which device a workload runs on, and its name.

use std::sync::OnceLock;
use tch::Device;

/// A device request the host cannot satisfy.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    /// The request is none of `auto`, `cpu`, `cuda`, `cuda:N`.
    #[error("unknown device `{0}`: use auto, cpu or cuda:N")]
    Unknown(String),
    /// A GPU was requested and libtorch sees none.
    #[error("device `{0}` requested but CUDA is not available to libtorch (no visible GPU, or a CPU-only libtorch)")]
    NoCuda(String),
    /// The GPU index is past the visible devices.
    #[error("device `{request}` requested but only {count} GPU(s) are visible")]
    NoSuchGpu {
        /// What was asked for.
        request: String,
        /// Visible CUDA devices.
        count: i64,
    },
}

/// Resolves a `Setup::device` request: `auto` is the first visible GPU when
/// CUDA works and the CPU otherwise; `cpu`; `cuda` (= `cuda:0`); `cuda:N`.
pub fn select(request: &str) -> Result<Device, DeviceError> {
    let request = request.trim();
    let index = match request {
        "" | "auto" => return Ok(Device::cuda_if_available()),
        "cpu" => return Ok(Device::Cpu),
        "cuda" | "gpu" => 0,
        other => match other.strip_prefix("cuda:").and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => n,
            None => return Err(DeviceError::Unknown(other.to_string())),
        },
    };
    if !tch::Cuda::is_available() {
        return Err(DeviceError::NoCuda(request.to_string()));
    }
    let count = tch::Cuda::device_count();
    if index as i64 >= count {
        return Err(DeviceError::NoSuchGpu { request: request.to_string(), count });
    }
    Ok(Device::Cuda(index))
}

/// The CUDA driver library (`libcuda.so.1`, which libtorch already
/// loaded); `None` without a driver.
pub(crate) fn driver() -> Option<&'static libloading::Library> {
    // Never unloaded: the driver stays loaded for the life of the process anyway.
    static DRIVER: OnceLock<Option<libloading::Library>> = OnceLock::new();
    // SAFETY: loading the CUDA driver runs no code beyond its initialisers.
    DRIVER.get_or_init(|| unsafe { libloading::Library::new("libcuda.so.1").ok() }).as_ref()
}

/// The marketing name of CUDA device `index` (as numbered inside this
/// process, i.e. after `CUDA_VISIBLE_DEVICES`), read from the driver API of
/// the `libcuda` that libtorch already loaded. `None` without a driver.
pub fn gpu_name(index: usize) -> Option<String> {
    type CuInit = unsafe extern "C" fn(u32) -> i32;
    type CuDeviceGet = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type CuDeviceGetName = unsafe extern "C" fn(*mut std::ffi::c_char, i32, i32) -> i32;
    let lib = driver()?;
    // SAFETY: these driver API entry points have these C signatures (cuda.h),
    // and `buf` outlives the call that fills it.
    unsafe {
        let init: libloading::Symbol<CuInit> = lib.get(b"cuInit\0").ok()?;
        let get: libloading::Symbol<CuDeviceGet> = lib.get(b"cuDeviceGet\0").ok()?;
        let name: libloading::Symbol<CuDeviceGetName> = lib.get(b"cuDeviceGetName\0").ok()?;
        if init(0) != 0 {
            return None;
        }
        let mut device = 0i32;
        if get(&mut device, i32::try_from(index).ok()?) != 0 {
            return None;
        }
        let mut buf = [0 as std::ffi::c_char; 256];
        if name(buf.as_mut_ptr(), buf.len() as i32, device) != 0 {
            return None;
        }
        Some(std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_and_auto_resolve_and_bad_requests_are_named() {
        assert_eq!(select("cpu"), Ok(Device::Cpu));
        assert_eq!(select("auto").unwrap(), Device::cuda_if_available());
        let e = select("tpu:0").unwrap_err().to_string();
        assert!(e.contains("tpu:0") && e.contains("cuda:N"), "{e}");
        assert!(select("cuda:x").is_err());
    }

    #[test]
    fn gpu_requests_fail_clearly_without_that_gpu() {
        let count = if tch::Cuda::is_available() { tch::Cuda::device_count() } else { 0 };
        let beyond = format!("cuda:{count}");
        let e = select(&beyond).unwrap_err().to_string();
        assert!(e.contains(&beyond), "{e}");
        if count == 0 {
            assert!(gpu_name(0).is_none(), "no GPU is visible, yet a name was found");
        }
    }
}
