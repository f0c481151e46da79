//! AMD GPUs through the AMD SMI library (`libamd_smi.so`, ROCm 6 and
//! later), loaded at run time through libloading: a host without it (or a
//! CPU host) runs on, and the sysfs reader ([`super::probe`]) reads what the
//! library does not give.
//!
//! Only calls whose arguments are scalars, or structs whose layout has not
//! changed across AMD SMI releases, are made:
//!
//! | gauge / counter | call | unit |
//! |---|---|---|
//! | `utilization_percent`, `memory_utilization_percent` | `amdsmi_get_gpu_activity` (`gfx_activity`, `umc_activity`) | % |
//! | `memory_used_bytes` | `amdsmi_get_gpu_memory_usage` (VRAM) | bytes |
//! | `temperature_c` | `amdsmi_get_temp_metric` (edge, else hotspot: MI300 has no edge sensor) | °C |
//! | `sm_clock_mhz`, `memory_clock_mhz` | `amdsmi_get_clock_info` (GFX, MEM) `clk`; the maxima: `max_clk` | MHz |
//! | `energy_mj` (counter) | `amdsmi_get_energy_count`: accumulator × resolution (µJ) | mJ |
//! | `ecc_corrected`, `ecc_uncorrected` (counters) | `amdsmi_get_gpu_total_ecc_count` | errors |
//!
//! `amdsmi_get_power_info` is not called: its struct changed layout between
//! releases (six `uint32_t` fields up to ROCm 6.2, a leading `uint64_t
//! socket_power` and 64-bit voltages after), so a library of another
//! release would be misread. Power, the PCIe link and the throttle reasons
//! come from sysfs.
//!
//! The library serialises its calls internally; the samplers of several
//! instances call it from their own threads.

use crate::gpu::Maxima;
use libloading::Library;
use mlb_record::reading::Reading;
use std::collections::BTreeMap;
use std::ffi::{c_void, OsStr};
use std::sync::Arc;

const SUCCESS: u32 = 0;
const INIT_AMD_GPUS: u64 = 1 << 1;
const CLK_GFX: u32 = 0;
const CLK_MEM: u32 = 4;
const TEMP_EDGE: u32 = 0;
const TEMP_HOTSPOT: u32 = 1;
const TEMP_CURRENT: u32 = 0;
const MEM_VRAM: u32 = 0;

/// `amdsmi_engine_usage_t`.
#[repr(C)]
#[derive(Default)]
struct EngineUsage {
    gfx_activity: u32,
    umc_activity: u32,
    _mm_activity: u32,
    _reserved: [u32; 13],
}

/// `amdsmi_clk_info_t`.
#[repr(C)]
#[derive(Default)]
struct ClockInfo {
    clk: u32,
    _min_clk: u32,
    max_clk: u32,
    _clk_locked: u8,
    _clk_deep_sleep: u8,
    _reserved: [u32; 4],
}

/// `amdsmi_error_count_t`.
#[repr(C)]
#[derive(Default)]
struct ErrorCount {
    correctable: u64,
    uncorrectable: u64,
    _deferred: u64,
    _reserved: [u64; 5],
}

type Handle = *mut c_void;

/// The calls made, resolved once.
struct Calls {
    socket_handles: unsafe extern "C" fn(*mut u32, *mut Handle) -> u32,
    processor_handles: unsafe extern "C" fn(Handle, *mut u32, *mut Handle) -> u32,
    bdf: unsafe extern "C" fn(Handle, *mut u64) -> u32,
    activity: unsafe extern "C" fn(Handle, *mut EngineUsage) -> u32,
    memory_usage: unsafe extern "C" fn(Handle, u32, *mut u64) -> u32,
    temperature: unsafe extern "C" fn(Handle, u32, u32, *mut i64) -> u32,
    clock: unsafe extern "C" fn(Handle, u32, *mut ClockInfo) -> u32,
    energy: unsafe extern "C" fn(Handle, *mut u64, *mut f32, *mut u64) -> u32,
    ecc: unsafe extern "C" fn(Handle, *mut ErrorCount) -> u32,
}

/// The loaded library and its GPUs, by PCI address (`0000:c1:00.0`).
pub struct AmdSmi {
    calls: Calls,
    gpus: BTreeMap<String, usize>,
    // The handles are the library's opaque pointers, kept as addresses:
    // they stay valid while it is loaded, and its calls lock internally.
    handles: Vec<usize>,
    _library: Library,
}

impl std::fmt::Debug for AmdSmi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AmdSmi").field("gpus", &self.gpus.keys().collect::<Vec<_>>()).finish()
    }
}

/// One GPU of the library: a handle of the shared library.
#[derive(Clone, Debug)]
pub struct SmiGpu {
    smi: Arc<AmdSmi>,
    index: usize,
}

impl AmdSmi {
    /// Loads `library` (default: `libamd_smi.so` from the loader's path,
    /// then `/opt/rocm/lib/libamd_smi.so`), initialises it for AMD GPUs and
    /// lists them. The error says why it cannot be used.
    pub fn load(library: Option<&OsStr>) -> Result<Arc<AmdSmi>, String> {
        let candidates: Vec<&OsStr> = match library {
            Some(path) => vec![path],
            None => vec![OsStr::new("libamd_smi.so"), OsStr::new("/opt/rocm/lib/libamd_smi.so")],
        };
        let mut why = Vec::new();
        for candidate in candidates {
            // SAFETY: loading runs the library's constructors; AMD SMI's do
            // not touch the caller's state.
            match unsafe { Library::new(candidate) } {
                Ok(lib) => return AmdSmi::open(lib),
                // libloading's message is "dlopen failed"; the loader's is its source.
                Err(e) => why.push(std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string)),
            }
        }
        Err(why.join("; "))
    }

    fn open(library: Library) -> Result<Arc<AmdSmi>, String> {
        macro_rules! call {
            ($name:literal) => {
                // SAFETY: the symbol has the signature of amdsmi.h, and the
                // pointer is used only while `library` is held.
                *unsafe { library.get($name) }.map_err(|e| e.to_string())?
            };
        }
        let init: unsafe extern "C" fn(u64) -> u32 = call!(b"amdsmi_init\0");
        let calls = Calls {
            socket_handles: call!(b"amdsmi_get_socket_handles\0"),
            processor_handles: call!(b"amdsmi_get_processor_handles\0"),
            bdf: call!(b"amdsmi_get_gpu_device_bdf\0"),
            activity: call!(b"amdsmi_get_gpu_activity\0"),
            memory_usage: call!(b"amdsmi_get_gpu_memory_usage\0"),
            temperature: call!(b"amdsmi_get_temp_metric\0"),
            clock: call!(b"amdsmi_get_clock_info\0"),
            energy: call!(b"amdsmi_get_energy_count\0"),
            ecc: call!(b"amdsmi_get_gpu_total_ecc_count\0"),
        };
        // SAFETY: every call below passes pointers to live, properly sized buffers.
        let status = unsafe { init(INIT_AMD_GPUS) };
        if status != SUCCESS {
            return Err(format!("amdsmi_init failed with status {status}"));
        }
        let sockets = list(|n, out| unsafe { (calls.socket_handles)(n, out) })?;
        let mut gpus = BTreeMap::new();
        let mut all = Vec::new();
        for socket in sockets {
            for gpu in list(|n, out| unsafe { (calls.processor_handles)(socket, n, out) })? {
                let mut bdf = 0u64;
                if unsafe { (calls.bdf)(gpu, &mut bdf) } == SUCCESS {
                    gpus.insert(pci_address(bdf), all.len());
                    all.push(gpu as usize);
                }
            }
        }
        Ok(Arc::new(AmdSmi { calls, gpus, handles: all, _library: library }))
    }

    /// The GPU at PCI address `address`, when the library lists it.
    pub fn gpu(self: &Arc<Self>, address: &str) -> Option<SmiGpu> {
        let index = *self.gpus.get(&address.to_ascii_lowercase())?;
        Some(SmiGpu { smi: Arc::clone(self), index })
    }
}

/// The handles a two-call listing gives (count first, then the handles).
fn list(call: impl Fn(*mut u32, *mut Handle) -> u32) -> Result<Vec<Handle>, String> {
    let mut n = 0u32;
    let status = call(&mut n, std::ptr::null_mut());
    if status != SUCCESS {
        return Err(format!("listing the GPUs failed with status {status}"));
    }
    let mut out = vec![std::ptr::null_mut(); n as usize];
    let status = call(&mut n, out.as_mut_ptr());
    if status != SUCCESS {
        return Err(format!("listing the GPUs failed with status {status}"));
    }
    out.truncate(n as usize);
    Ok(out)
}

/// `amdsmi_bdf_t` as a PCI address: function (bits 0-2), device (3-7), bus
/// (8-15), domain (16-63).
fn pci_address(bdf: u64) -> String {
    format!("{:04x}:{:02x}:{:02x}.{:x}", bdf >> 16, (bdf >> 8) & 0xff, (bdf >> 3) & 0x1f, bdf & 0x7)
}

impl SmiGpu {
    fn handle(&self) -> Handle {
        self.smi.handles[self.index] as Handle
    }

    fn clock(&self, kind: u32) -> Option<ClockInfo> {
        let mut info = ClockInfo::default();
        // SAFETY: a live handle and a buffer of the struct's size.
        (unsafe { (self.smi.calls.clock)(self.handle(), kind, &mut info) } == SUCCESS).then_some(info)
    }

    /// The clocks' maxima (the name and the link's come from sysfs).
    pub fn maxima(&self, into: &mut Maxima) {
        if let Some(c) = self.clock(CLK_GFX).filter(|c| c.max_clk > 0) {
            into.sm_clock_max_mhz = Some(c.max_clk);
        }
        if let Some(c) = self.clock(CLK_MEM).filter(|c| c.max_clk > 0) {
            into.memory_clock_max_mhz = Some(c.max_clk);
        }
    }

    /// Reads the GPU once; a call the GPU does not support is left out.
    pub fn read(&self, r: &mut Reading) {
        let (c, h) = (&self.smi.calls, self.handle());
        // SAFETY: a live handle and buffers of the structs' sizes, each call.
        unsafe {
            let mut usage = EngineUsage::default();
            if (c.activity)(h, &mut usage) == SUCCESS {
                r.gauge("utilization_percent", Some(f64::from(usage.gfx_activity)));
                r.gauge("memory_utilization_percent", Some(f64::from(usage.umc_activity)));
            }
            let mut used = 0u64;
            if (c.memory_usage)(h, MEM_VRAM, &mut used) == SUCCESS {
                r.gauge("memory_used_bytes", Some(used as f64));
            }
            let mut temp = 0i64;
            if (c.temperature)(h, TEMP_EDGE, TEMP_CURRENT, &mut temp) == SUCCESS
                || (c.temperature)(h, TEMP_HOTSPOT, TEMP_CURRENT, &mut temp) == SUCCESS
            {
                r.gauge("temperature_c", Some(temp as f64));
            }
            let (mut acc, mut resolution, mut stamp) = (0u64, 0f32, 0u64);
            if (c.energy)(h, &mut acc, &mut resolution, &mut stamp) == SUCCESS && resolution > 0.0 {
                r.counter("energy_mj", Some((acc as f64 * f64::from(resolution) / 1000.0) as u64));
            }
            let mut ecc = ErrorCount::default();
            if (c.ecc)(h, &mut ecc) == SUCCESS {
                r.counter("ecc_corrected", Some(ecc.correctable));
                r.counter("ecc_uncorrected", Some(ecc.uncorrectable));
            }
        }
        r.gauge("sm_clock_mhz", self.clock(CLK_GFX).map(|i| f64::from(i.clk)));
        r.gauge("memory_clock_mhz", self.clock(CLK_MEM).map(|i| f64::from(i.clk)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bdf_is_a_pci_address() {
        // Domain 0, bus 0xc1, device 0, function 0; and domain 1, bus 3, device 0x1f, function 7.
        assert_eq!(pci_address(0xc1 << 8), "0000:c1:00.0");
        assert_eq!(pci_address((1 << 16) | (3 << 8) | (0x1f << 3) | 7), "0001:03:1f.7");
    }

    #[test]
    fn a_missing_library_is_a_reason() {
        let why = AmdSmi::load(Some(OsStr::new("/nonexistent/libamd_smi.so"))).unwrap_err();
        assert!(why.contains("libamd_smi.so"), "{why}");
    }
}
