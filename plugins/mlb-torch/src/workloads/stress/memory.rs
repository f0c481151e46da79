//! The memory a stress workload may take, and gemm's side sized to a share
//! of it: on a GPU, its free memory (the driver's `cuMemGetInfo`, after
//! libtorch made the device's context); on the CPU, the least of the slot's
//! cgroup memory limit and the host's `MemAvailable`.

use tch::Device;

/// The largest side on a GPU: a product of two 32768^2 bf16 matrices is
/// about 0.1 s on a data-centre GPU, and within a step in fp32.
pub const GPU_CAP: i64 = 32768;
/// The largest side on the CPU: a product near a tenth of a second on one core.
pub const CPU_CAP: i64 = 1024;
/// Sides are a multiple of this (the tiles of the BLAS kernels).
pub const ALIGN: i64 = 64;

/// The side of `matrices` square matrices of `element` bytes that fill
/// `share` of `free` bytes: a multiple of [`ALIGN`], from [`ALIGN`] to `cap`.
pub fn side(free: u64, share: f64, element: u64, matrices: u64, cap: i64) -> i64 {
    let elements = share * free as f64 / (element * matrices) as f64;
    let side = elements.max(0.0).sqrt() as i64 / ALIGN * ALIGN;
    side.clamp(ALIGN, cap.max(ALIGN))
}

/// Bytes free to the workload on `device`; `None` when not known.
pub fn free(device: Device) -> Option<u64> {
    match device {
        Device::Cuda(index) => gpu_free(index),
        _ => {
            let available = meminfo_available(&std::fs::read_to_string("/proc/meminfo").ok()?);
            let limit = cgroup_limit();
            available.into_iter().chain(limit).min()
        }
    }
}

/// `MemAvailable` of `/proc/meminfo`'s text, in bytes.
pub fn meminfo_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory limit of this process's cgroup (v2 `memory.max`, v1
/// `memory.limit_in_bytes`); `None` when unlimited or not found.
fn cgroup_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    groups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let file = match controllers {
            "" => format!("/sys/fs/cgroup{path}/memory.max"),
            c if c.split(',').any(|c| c == "memory") => format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"),
            _ => return None,
        };
        limit(&std::fs::read_to_string(file).ok()?)
    })
}

/// A cgroup memory limit's text: `None` for `max` or v1's "no limit" (a
/// number near 2^63).
pub fn limit(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|n| *n < 1 << 62)
}

/// Free bytes of CUDA device `index` (of this process): the driver's
/// `cuMemGetInfo_v2` in the context libtorch made current (made by a small
/// allocation first), else its total memory (`cuDeviceTotalMem_v2`).
fn gpu_free(index: usize) -> Option<u64> {
    type CuMemGetInfo = unsafe extern "C" fn(*mut usize, *mut usize) -> i32;
    type CuDeviceGet = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type CuDeviceTotalMem = unsafe extern "C" fn(*mut usize, i32) -> i32;
    let _context = tch::Tensor::f_zeros([1], (tch::Kind::Float, Device::Cuda(index))).ok()?;
    let lib = crate::device::driver()?;
    // SAFETY: these driver API entry points have these C signatures
    // (cuda.h), and the out-parameters live across each call.
    unsafe {
        let (mut free, mut total) = (0usize, 0usize);
        let info: libloading::Symbol<CuMemGetInfo> = lib.get(b"cuMemGetInfo_v2\0").ok()?;
        if info(&mut free, &mut total) == 0 {
            return Some(free as u64);
        }
        let get: libloading::Symbol<CuDeviceGet> = lib.get(b"cuDeviceGet\0").ok()?;
        let total_mem: libloading::Symbol<CuDeviceTotalMem> = lib.get(b"cuDeviceTotalMem_v2\0").ok()?;
        let mut device = 0i32;
        (get(&mut device, i32::try_from(index).ok()?) == 0 && total_mem(&mut total, device) == 0)
            .then_some(total as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_fills_the_share_and_stays_within_its_bounds() {
        // 80 GB free, a tenth, three bf16 matrices: sqrt(8e9 / 6) = 36514, capped.
        assert_eq!(side(80_000_000_000, 0.1, 2, 3, GPU_CAP), GPU_CAP);
        // 16 GiB, a tenth, three float32 matrices: sqrt(1717986918 / 12) = 11965 -> 11904.
        assert_eq!(side(16 << 30, 0.1, 4, 3, GPU_CAP), 11904);
        assert_eq!(side(16 << 30, 0.1, 4, 3, GPU_CAP) % ALIGN, 0);
        // A slot of 1 GiB on the CPU: capped at CPU_CAP; of 4 MiB: 512.
        assert_eq!(side(1 << 30, 0.1, 4, 3, CPU_CAP), CPU_CAP);
        assert_eq!(side(4 << 20, 0.5, 4, 3, CPU_CAP), 384);
        assert_eq!((side(0, 0.1, 4, 3, CPU_CAP), side(1 << 30, 0.0, 4, 3, CPU_CAP)), (ALIGN, ALIGN));
    }

    #[test]
    fn limits_and_meminfo_are_read() {
        assert_eq!(limit("max\n"), None);
        assert_eq!(limit("9223372036854771712\n"), None, "v1's no limit");
        assert_eq!(limit("1073741824\n"), Some(1 << 30));
        let meminfo = "MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:   8000000 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(8_000_000 * 1024));
        assert!(free(Device::Cpu).is_some_and(|b| b > 0), "this host has memory");
    }
}
