//! AMD GPUs through the AMD SMI library when it is there ([`super::amdsmi`]),
//! and through the amdgpu driver's sysfs files for what it does not give
//! (or for everything, without it): the device folder
//! (`/sys/bus/pci/devices/ADDR`) and its hwmon folder. One read of each of
//! an instance's devices per sample; what a driver does not expose is left
//! out.
//!
//! | gauge / counter | file | unit |
//! |---|---|---|
//! | `utilization_percent` | `gpu_busy_percent` | % |
//! | `memory_utilization_percent` | `mem_busy_percent` | % |
//! | `memory_used_bytes` | `mem_info_vram_used` | bytes |
//! | `temperature_c` | `hwmon*/temp1_input` (edge) | m°C → °C |
//! | `power_w` | `hwmon*/power1_input` (instant, newer drivers) | µW → W |
//! | `power_average_w` | `hwmon*/power1_average` | µW → W |
//! | `sm_clock_mhz`, `memory_clock_mhz` | `hwmon*/freq1_input` (sclk), `freq2_input` (mclk) | Hz → MHz |
//! | `pcie_gen`, `pcie_width` | `current_link_speed` (GT/s → generation), `current_link_width` | |
//! | `energy_mj` (counter) | `hwmon*/energy1_input`, where the driver has it | µJ → mJ |
//! | `ecc_corrected`, `ecc_uncorrected` (counters) | `ras/umc_err_count` (`ce:`, `ue:`) | errors |
//!
//! The maxima: the last level of `pp_dpm_sclk` and `pp_dpm_mclk`,
//! `max_link_speed` and `max_link_width`; the name, `product_name`.
//!
//! Throttle reasons come from the binary `gpu_metrics` table when it is a
//! v1.3 one (the MI200 series), whose `indep_throttle_status` has the
//! driver's ASIC-independent bits; they are folded into NVIDIA's reasons
//! ([`AMD_REASONS`]) so that both vendors' throttle fractions read alike.
//! Other table versions carry an ASIC-dependent status and give no reasons.

use super::amdsmi::{AmdSmi, SmiGpu};
use crate::gpu::{DeviceIndex, Gpu, GpuReader, Maxima, Vendor};
use mlb_record::reading::{keyed, number, Reading};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The device folders of the host's AMD GPUs, by device index.
#[derive(Clone, Debug, Default)]
pub struct AmdProbe {
    devices: Vec<Device>,
    /// Why the AMD SMI library is not used, when it is not.
    without_amdsmi: Option<String>,
}

/// One GPU's folders, found once: its device folder and its hwmon folder;
/// and the GPU in the AMD SMI library, when loaded.
#[derive(Clone, Debug)]
struct Device {
    dir: PathBuf,
    hwmon: Option<PathBuf>,
    smi: Option<SmiGpu>,
}

impl AmdProbe {
    /// The probe of `gpus`' AMD devices, read under `root` (`/` on a real
    /// host), and through `smi` for the devices it lists (else why not).
    pub fn of(gpus: &[Gpu], root: &Path, smi: Result<&Arc<AmdSmi>, &str>) -> AmdProbe {
        let devices: Vec<Device> = gpus
            .iter()
            .filter(|g| g.vendor == Vendor::Amd)
            .map(|g| {
                let dir = root.join("sys/bus/pci/devices").join(&g.pci_bus);
                Device { hwmon: hwmon(&dir), dir, smi: smi.ok().and_then(|s| s.gpu(&g.pci_bus)) }
            })
            .collect();
        let without_amdsmi = match smi {
            Err(why) => Some(why.to_string()),
            Ok(_) if !devices.iter().any(|d| d.smi.is_some()) => Some("it lists none of these GPUs".into()),
            Ok(_) => None,
        };
        AmdProbe { devices, without_amdsmi }
    }
}

impl GpuReader for AmdProbe {
    fn source(&self) -> String {
        match &self.without_amdsmi {
            None => "amdsmi; amdgpu sysfs for power, the PCIe link and throttle reasons".into(),
            Some(why) => format!("amdgpu sysfs (no amdsmi: {why})"),
        }
    }

    fn maxima(&self, device: DeviceIndex) -> Maxima {
        let Some(Device { dir: d, smi, .. }) = self.devices.get(device.get()) else { return Maxima::default() };
        let text = |name: &str| std::fs::read_to_string(d.join(name)).ok();
        let mut maxima = Maxima {
            name: text("product_name").map(|n| n.trim().to_string()).filter(|n| !n.is_empty()),
            sm_clock_max_mhz: text("pp_dpm_sclk").as_deref().and_then(top_level_mhz),
            memory_clock_max_mhz: text("pp_dpm_mclk").as_deref().and_then(top_level_mhz),
            pcie_gen_max: text("max_link_speed").as_deref().and_then(generation),
            pcie_width_max: number(&d.join("max_link_width")).map(|w| w as u32),
        };
        if let Some(gpu) = smi {
            gpu.maxima(&mut maxima);
        }
        maxima
    }

    /// Reads `device` once: through the AMD SMI library when it lists the
    /// device, then from sysfs what the library did not give.
    fn read(&self, device: DeviceIndex) -> Reading {
        let mut r = Reading::default();
        let Some(device) = self.devices.get(device.get()) else { return r };
        if let Some(gpu) = &device.smi {
            gpu.read(&mut r);
        }
        sysfs(device, &mut r);
        r
    }
}

/// Reads from a device's sysfs files what `r` does not hold yet; a file is
/// read only when one of its values is missing.
fn sysfs(Device { dir: d, hwmon, .. }: &Device, r: &mut Reading) {
    // First: the gauges read next belong with it.
    r.reasons = r.reasons.or_else(|| {
        std::fs::read(d.join("gpu_metrics")).ok().as_deref().and_then(independent_throttle_status).map(as_reasons)
    });
    let at = |name: &str| number(&d.join(name)).map(|v| v as f64);
    let mon = |name: &str| hwmon.as_ref().and_then(|h| number(&h.join(name))).map(|v| v as f64);
    r.gauge_unless_read("utilization_percent", || at("gpu_busy_percent"));
    r.gauge_unless_read("memory_utilization_percent", || at("mem_busy_percent"));
    r.gauge_unless_read("memory_used_bytes", || at("mem_info_vram_used"));
    r.gauge_unless_read("temperature_c", || mon("temp1_input").map(|m| m / 1000.0));
    r.gauge_unless_read("power_w", || mon("power1_input").map(|uw| uw / 1e6));
    r.gauge_unless_read("power_average_w", || mon("power1_average").map(|uw| uw / 1e6));
    r.gauge_unless_read("sm_clock_mhz", || mon("freq1_input").map(|hz| hz / 1e6));
    r.gauge_unless_read("memory_clock_mhz", || mon("freq2_input").map(|hz| hz / 1e6));
    r.gauge_unless_read("pcie_gen", || {
        std::fs::read_to_string(d.join("current_link_speed")).ok().as_deref().and_then(generation).map(f64::from)
    });
    r.gauge_unless_read("pcie_width", || at("current_link_width"));
    r.counter_unless_read("energy_mj", || {
        hwmon.as_ref().and_then(|h| number(&h.join("energy1_input"))).map(|uj| uj / 1000)
    });
    let ras = std::cell::OnceCell::new();
    let ras = |key: &str| {
        ras.get_or_init(|| std::fs::read_to_string(d.join("ras/umc_err_count")).ok())
            .as_deref()
            .and_then(|t| keyed(t, key))
    };
    r.counter_unless_read("ecc_corrected", || ras("ce:"));
    r.counter_unless_read("ecc_uncorrected", || ras("ue:"));
}

/// The driver's ASIC-independent throttler bits (`SMU_THROTTLER_*_BIT`),
/// by group, and the NVIDIA reason (bit of [`mlb_record::reading::reasons::REASONS`]) each
/// group is counted as: power limits as a software power cap, current
/// limits as a hardware slowdown, temperatures as a thermal slowdown, VR hot
/// and PROCHOT as a hardware thermal slowdown, platform power management as
/// a power cap and FIT as a hardware slowdown.
pub const AMD_REASONS: [(u64, u64); 6] = [
    (0xff, 0x4),         // PPT0..3, SPL, FPPT, SPPT, SPPT_APU (bits 0-7)
    (0xff << 16, 0x8),   // TDC_GFX..APCC (bits 16-23)
    (0xfff << 32, 0x20), // TEMP_GPU..TEMP_LIQUID1 (bits 32-43)
    (0xf << 44, 0x40),   // VRHOT0, VRHOT1, PROCHOT_CPU, PROCHOT_GFX (bits 44-47)
    (1 << 56, 0x4),      // PPM
    (1 << 57, 0x8),      // FIT
];

/// `indep_throttle_status` of a `gpu_metrics` v1.3 table (header: size u16,
/// format 1, content 3; the field at byte 112, little-endian); `None` for
/// any other table.
fn independent_throttle_status(table: &[u8]) -> Option<u64> {
    if table.get(2..4)? != [1, 3] {
        return None;
    }
    Some(u64::from_le_bytes(table.get(112..120)?.try_into().ok()?))
}

/// NVIDIA's reason bits for AMD's independent throttler bits.
fn as_reasons(status: u64) -> u64 {
    AMD_REASONS.iter().filter(|(bits, _)| status & bits != 0).fold(0, |acc, (_, reason)| acc | reason)
}

/// The device's first hwmon folder.
fn hwmon(device: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(device.join("hwmon")).ok()?.flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs.into_iter().next()
}

/// The PCIe generation of a link speed (`16.0 GT/s PCIe`).
fn generation(speed: &str) -> Option<u32> {
    let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
    [(2.5, 1), (5.0, 2), (8.0, 3), (16.0, 4), (32.0, 5), (64.0, 6)]
        .iter()
        .find(|(rate, _)| (gts - rate).abs() < 0.1)
        .map(|&(_, gen)| gen)
}

/// The highest level of a `pp_dpm_*` table (`2: 1700Mhz *`), MHz.
fn top_level_mhz(table: &str) -> Option<u32> {
    table
        .lines()
        .filter_map(|l| {
            l.split_once(':')?.1.split_whitespace().next()?.trim_end_matches(|c: char| c.is_alphabetic()).parse().ok()
        })
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A fixture of the amdgpu driver's files (an MI250X-like device on a
    /// PCIe 4.0 x16 slot, its link trained at 3.0 x8).
    #[test]
    fn a_device_folder_is_read_with_its_units() {
        let root = tempfile::tempdir().unwrap();
        let dev = "sys/bus/pci/devices/0000:c1:00.0";
        for (file, text) in [
            ("product_name", "AMD Instinct MI250X\n"),
            ("pp_dpm_sclk", "0: 500Mhz\n1: 800Mhz *\n2: 1700Mhz\n"),
            ("pp_dpm_mclk", "0: 400Mhz\n1: 1600Mhz *\n"),
            ("max_link_speed", "16.0 GT/s PCIe\n"),
            ("max_link_width", "16\n"),
            ("current_link_speed", "8.0 GT/s PCIe\n"),
            ("current_link_width", "8\n"),
            ("gpu_busy_percent", "97\n"),
            ("mem_busy_percent", "40\n"),
            ("mem_info_vram_used", "1073741824\n"),
            ("ras/umc_err_count", "ue: 0\nce: 3\n"),
            ("hwmon/hwmon3/temp1_input", "65000\n"),
            ("hwmon/hwmon3/power1_average", "412000000\n"),
            ("hwmon/hwmon3/freq1_input", "1700000000\n"),
            ("hwmon/hwmon3/freq2_input", "1600000000\n"),
        ] {
            put(root.path(), &format!("{dev}/{file}"), text);
        }
        let gpu = Gpu {
            index: DeviceIndex(0),
            vendor: Vendor::Amd,
            name: "AMD Instinct MI250X".into(),
            memory_bytes: None,
            numa_node: None,
            pci_bus: "0000:c1:00.0".into(),
            source: "kfd",
        };
        let probe = AmdProbe::of(&[gpu], root.path(), Err("not loaded"));
        assert_eq!(probe.source(), "amdgpu sysfs (no amdsmi: not loaded)");
        let m = probe.maxima(DeviceIndex(0));
        assert_eq!(m.name.as_deref(), Some("AMD Instinct MI250X"));
        assert_eq!(
            (m.sm_clock_max_mhz, m.memory_clock_max_mhz, m.pcie_gen_max, m.pcie_width_max),
            (Some(1700), Some(1600), Some(4), Some(16))
        );
        let r = probe.read(DeviceIndex(0));
        let g = |n: &str| r.gauge_of(n);
        assert_eq!((g("utilization_percent"), g("memory_utilization_percent")), (Some(97.0), Some(40.0)));
        assert_eq!((g("temperature_c"), g("power_average_w"), g("power_w")), (Some(65.0), Some(412.0), None));
        assert_eq!((g("sm_clock_mhz"), g("memory_clock_mhz")), (Some(1700.0), Some(1600.0)));
        assert_eq!(
            (g("pcie_gen"), g("pcie_width"), g("memory_used_bytes")),
            (Some(3.0), Some(8.0), Some(1073741824.0))
        );
        assert_eq!(r.counter_of("ecc_corrected").map(|c| c.value), Some(3));
        assert_eq!(r.counter_of("ecc_uncorrected").map(|c| c.value), Some(0));
        assert_eq!(r.counter_of("energy_mj"), None, "no energy1_input on this device");
        put(root.path(), &format!("{dev}/hwmon/hwmon3/energy1_input"), "123456789\n");
        assert_eq!(probe.read(DeviceIndex(0)).counter_of("energy_mj").map(|c| c.value), Some(123456));
        assert_eq!(probe.read(DeviceIndex(1)), Reading::default(), "no such device");
        assert_eq!(probe.read(DeviceIndex(0)).reasons, None, "no gpu_metrics table: no reasons");
        // A v1.3 table throttling on power (PPT0) and the GPU's temperature.
        let mut table = vec![0u8; 120];
        table[..4].copy_from_slice(&[120, 0, 1, 3]);
        table[112..120].copy_from_slice(&((1u64 << 0) | (1u64 << 32)).to_le_bytes());
        std::fs::write(root.path().join(dev).join("gpu_metrics"), &table).unwrap();
        assert_eq!(probe.read(DeviceIndex(0)).reasons, Some(0x4 | 0x20), "sw_power_cap and sw_thermal_slowdown");
        table[3] = 2; // v1.2: an ASIC-dependent status only
        std::fs::write(root.path().join(dev).join("gpu_metrics"), &table).unwrap();
        assert_eq!(probe.read(DeviceIndex(0)).reasons, None);
    }

    #[test]
    fn every_independent_throttler_group_is_a_slowdown_reason() {
        use mlb_record::reading::reasons::SLOWDOWN;
        for bit in (0..8).chain(16..24).chain(32..48).chain([56, 57]) {
            let reasons = as_reasons(1 << bit);
            assert!(reasons != 0 && reasons & !SLOWDOWN == 0, "bit {bit}: {reasons:#x}");
        }
        assert_eq!(as_reasons(1 << 10), 0, "an unassigned bit");
        assert_eq!(independent_throttle_status(&[120, 0, 1, 3]), None, "a cut table");
    }
}
