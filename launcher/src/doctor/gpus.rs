//! Checks of NVIDIA GPUs through NVML: idle (foreign compute processes are
//! recorded, never killed), persistence mode, application clocks and power
//! limits against their defaults, the PCIe link against its maximum.

use super::check::{Check, Status};
use crate::host::{Host, Vendor};
use nvml_wrapper::enum_wrappers::device::Clock;
use nvml_wrapper::Device;

/// The checks of every NVIDIA GPU of `host` (none on a host without one).
pub fn checks(host: &Host) -> Vec<Check> {
    if !host.gpus.iter().any(|g| g.vendor == Vendor::Nvidia) {
        return vec![Check::pass("gpus", "no NVIDIA GPU: nothing to check through NVML")];
    }
    let library = std::env::var_os(crate::telemetry::probes::NVML_LIBRARY);
    let mut builder = nvml_wrapper::Nvml::builder();
    if let Some(path) = &library {
        builder.lib_path(path);
    }
    let nvml = match builder.init() {
        Ok(n) => n,
        Err(e) => {
            return vec![Check::not(
                Status::Fail,
                "nvml",
                format!("NVML did not load: {e}"),
                "install the NVIDIA driver's NVML library (libnvidia-ml.so.1)",
            )]
        }
    };
    let count = nvml.device_count().unwrap_or(0);
    (0..count).filter_map(|i| Some((i, nvml.device_by_index(i).ok()?))).flat_map(|(i, d)| device(i, &d)).collect()
}

fn device(i: u32, d: &Device) -> Vec<Check> {
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
