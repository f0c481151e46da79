//! NVIDIA GPUs: found through NVML when the library loads, else from sysfs
//! and `/proc/driver/nvidia`; `CUDA_VISIBLE_DEVICES`; a Docker device
//! request of the `nvidia` driver, Apptainer's `--nv`; the driver's and
//! CUDA's versions; the doctor's checks (idle, persistence mode,
//! application clocks, power limit, PCIe link); telemetry through NVML
//! ([`probe`], its XID events: [`xid`]); DCGM's diagnostics ([`dcgmi`]).

pub mod dcgmi;
pub mod probe;
pub mod xid;

pub use probe::NvidiaProbe;

use super::{pci_numa_node, ContainerAccess, DeviceIndex, Gpu, GpuReader, GpuVendor, Unavailable, Vendor};
use crate::check::{Check, Status};
use mlb_record::contract::env;
use nvml_wrapper::enum_wrappers::device::Clock;
use nvml_wrapper::{Device, Nvml};
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The variable naming the NVML library to load instead of the driver's
/// `libnvidia-ml.so.1` (a path).
const NVML_LIBRARY: &str = "MLB_NVML_LIBRARY";

/// PCI vendor id of NVIDIA.
const VENDOR_ID: &str = "0x10de";

/// What to do when NVML does not load.
const INSTALL_NVML: &str = "install the NVIDIA driver's NVML library (libnvidia-ml.so.1)";

/// NVIDIA's GPUs.
pub struct Nvidia;

/// NVML of this process: loaded on first use from [`NVML_LIBRARY`] when
/// set, else the driver's `libnvidia-ml.so.1`; or why it did not load.
fn nvml() -> Result<Arc<Nvml>, String> {
    static NVML: OnceLock<Result<Arc<Nvml>, String>> = OnceLock::new();
    NVML.get_or_init(|| open(std::env::var_os(NVML_LIBRARY).as_deref())).clone()
}

/// Loads NVML from `library` (a path), else the driver's from the loader's
/// search path.
pub fn open(library: Option<&OsStr>) -> Result<Arc<Nvml>, String> {
    let mut builder = Nvml::builder();
    if let Some(path) = library {
        builder.lib_path(path);
    }
    builder.init().map(Arc::new).map_err(|e| format!("NVML did not load: {e}"))
}

impl GpuVendor for Nvidia {
    fn detect(&self, root: &Path, library: bool) -> Vec<Gpu> {
        library.then(|| from_nvml(root)).flatten().unwrap_or_else(|| from_sysfs(root))
    }

    fn visible_devices_vars(&self) -> &'static [&'static str] {
        &[env::CUDA_VISIBLE_DEVICES]
    }

    fn container_access(&self, devices: &[DeviceIndex]) -> ContainerAccess {
        ContainerAccess::Request { driver: "nvidia", ids: devices.iter().map(DeviceIndex::to_string).collect() }
    }

    fn apptainer_flag(&self) -> &'static str {
        "--nv"
    }

    fn versions(&self, root: &Path) -> (String, String) {
        match nvml() {
            Ok(nvml) => {
                let cuda = nvml.sys_cuda_driver_version().ok().map(|v| {
                    format!(
                        "{}.{}",
                        nvml_wrapper::cuda_driver_version_major(v),
                        nvml_wrapper::cuda_driver_version_minor(v)
                    )
                });
                (nvml.sys_driver_version().unwrap_or_default(), cuda.unwrap_or_default())
            }
            Err(_) => (
                std::fs::read_to_string(root.join("proc/driver/nvidia/version"))
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default(),
                String::new(),
            ),
        }
    }

    fn checks(&self, _gpus: &[Gpu]) -> Vec<Check> {
        let nvml = match nvml() {
            Ok(n) => n,
            Err(why) => return vec![Check::not(Status::Fail, "nvml", why, INSTALL_NVML)],
        };
        let count = nvml.device_count().unwrap_or(0);
        (0..count).filter_map(|i| Some((i, nvml.device_by_index(i).ok()?))).flat_map(|(i, d)| checks(i, &d)).collect()
    }

    fn telemetry(&self, _gpus: &[Gpu]) -> Result<Arc<dyn GpuReader>, Unavailable> {
        match nvml() {
            Ok(nvml) => Ok(Arc::new(NvidiaProbe::of(nvml))),
            Err(why) => Err(Unavailable { why, fix: format!("{INSTALL_NVML} or set {NVML_LIBRARY}") }),
        }
    }
}

fn from_nvml(root: &Path) -> Option<Vec<Gpu>> {
    let nvml = nvml().ok()?;
    let count = nvml.device_count().ok()?;
    let mut out = Vec::new();
    for index in 0..count {
        let dev = nvml.device_by_index(index).ok()?;
        let pci_bus = dev.pci_info().map(|p| short_bus_id(&p.bus_id)).unwrap_or_default();
        out.push(Gpu {
            index: DeviceIndex(index),
            vendor: Vendor::Nvidia,
            name: dev.name().unwrap_or_else(|_| "NVIDIA GPU".into()),
            memory_bytes: dev.memory_info().ok().map(|m| m.total),
            numa_node: pci_numa_node(root, &pci_bus),
            pci_bus,
            source: "nvml",
        });
    }
    Some(out)
}

/// NVML writes an 8-digit PCI domain in upper case; sysfs a 4-digit one in lower case.
fn short_bus_id(nvml: &str) -> String {
    let lower = nvml.to_ascii_lowercase();
    match lower.split_once(':') {
        Some((domain, rest)) if domain.len() > 4 => format!("{}:{rest}", &domain[domain.len() - 4..]),
        _ => lower,
    }
}

fn from_sysfs(root: &Path) -> Vec<Gpu> {
    let dir = root.join("sys/bus/pci/devices");
    let read = |p: &Path| std::fs::read_to_string(p).map(|s| s.trim().to_string()).unwrap_or_default();
    let mut buses: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let class = read(&e.path().join("class"));
            read(&e.path().join("vendor")) == VENDOR_ID && (class.starts_with("0x0300") || class.starts_with("0x0302"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    buses.sort();
    buses
        .into_iter()
        .enumerate()
        .map(|(index, bus)| Gpu {
            index: index.into(),
            vendor: Vendor::Nvidia,
            name: proc_model(root, &bus).unwrap_or_else(|| "NVIDIA GPU".into()),
            memory_bytes: None,
            numa_node: pci_numa_node(root, &bus),
            pci_bus: bus,
            source: "sysfs",
        })
        .collect()
}

/// The `Model:` line of `/proc/driver/nvidia/gpus/<bus>/information`.
fn proc_model(root: &Path, bus: &str) -> Option<String> {
    let info = std::fs::read_to_string(root.join("proc/driver/nvidia/gpus").join(bus).join("information")).ok()?;
    info.lines().find_map(|l| l.strip_prefix("Model:")).map(|m| m.trim().to_string())
}

/// The doctor's checks of device `i`: idle (foreign compute processes are
/// recorded, never killed), persistence mode, application clocks and power
/// limit against their defaults, the PCIe link against its maximum.
fn checks(i: u32, d: &Device) -> Vec<Check> {
    let name = |what: &str| format!("gpu{i} {what}");
    let mut out = Vec::new();
    let procs = d.running_compute_processes().unwrap_or_default();
    out.push(if procs.is_empty() {
        Check::pass(name("idle"), "no compute process")
    } else {
        let pids: Vec<String> = procs.iter().map(|p| p.pid.to_string()).collect();
        Check::not(
            Status::Fail,
            name("idle"),
            format!("{} foreign compute process(es): pid {}", procs.len(), pids.join(", ")),
            "wait for them to end or stop them (mlb kills nothing)",
        )
    });
    if let Ok(on) = d.is_in_persistent_mode() {
        out.push(if on {
            Check::pass(name("persistence mode"), "on")
        } else {
            Check::not(
                Status::Warn,
                name("persistence mode"),
                "off",
                "nvidia-smi -pm 1 (the driver reinitialises between runs otherwise)",
            )
        });
    }
    for (clock, what) in [(Clock::SM, "SM"), (Clock::Memory, "memory")] {
        if let (Ok(now), Ok(default)) = (d.applications_clock(clock), d.default_applications_clock(clock)) {
            let found = format!("{what} application clock {now} MHz, default {default} MHz");
            out.push(if now == default {
                Check::pass(name("application clocks"), found)
            } else {
                Check::not(Status::Warn, name("application clocks"), found, "nvidia-smi -rac")
            });
        }
    }
    if let (Ok(limit), Ok(default)) = (d.power_management_limit(), d.power_management_limit_default()) {
        let found = format!("power limit {} W, default {} W", limit / 1000, default / 1000);
        out.push(if limit >= default {
            Check::pass(name("power limit"), found)
        } else {
            Check::not(Status::Warn, name("power limit"), found, format!("nvidia-smi -i {i} -pl {}", default / 1000))
        });
    }
    if let (Ok(gen), Ok(gen_max), Ok(width), Ok(width_max)) =
        (d.current_pcie_link_gen(), d.max_pcie_link_gen(), d.current_pcie_link_width(), d.max_pcie_link_width())
    {
        let found = format!("PCIe gen {gen} of {gen_max}, x{width} of x{width_max}");
        out.push(if gen >= gen_max && width >= width_max {
            Check::pass(name("pcie link"), found)
        } else {
            Check::not(
                Status::Warn,
                name("pcie link"),
                found,
                "an idle GPU may train its link down (check again under load); otherwise reseat the card or check the slot and BIOS",
            )
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvml_bus_ids_match_sysfs() {
        assert_eq!(short_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
        assert_eq!(short_bus_id("0000:3b:00.0"), "0000:3b:00.0");
    }

    #[test]
    fn devices_leave_as_a_device_request() {
        let access = Nvidia.container_access(&[DeviceIndex(3), DeviceIndex(5)]);
        assert_eq!(access, ContainerAccess::Request { driver: "nvidia", ids: vec!["3".into(), "5".into()] });
        assert_eq!((Nvidia.visible_devices_vars(), Nvidia.apptainer_flag()), (&["CUDA_VISIBLE_DEVICES"][..], "--nv"));
    }
}
