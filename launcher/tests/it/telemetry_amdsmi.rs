//! AMD telemetry without an AMD GPU: through a STAND-IN `libamd_smi.so`
//! (launcher/tests/fixtures/amdsmi/standin.c, compiled here with `cc`) that exports
//! the AMD SMI calls mlb makes, with amdsmi.h's struct layouts, and returns
//! scripted values; and a fixture of the amdgpu driver's sysfs files for
//! what mlb reads there (power, the PCIe link, the throttle reasons). The
//! library is loaded as `MLB_AMDSMI_LIBRARY` loads it. The real AMD SMI is
//! not exercised here: this host has no AMD GPU.

use crate::common;

use mlb::gpu::amd::{AmdProbe, AmdSmi};
use mlb::gpu::{DeviceIndex, Gpu, GpuReader, Vendor};
use mlb::isolation::Version;
use mlb::telemetry::block::{self, Context};
use mlb::telemetry::powercap::Powercap;
use mlb::telemetry::{Probes, Sources};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const DEVICE: &str = "sys/bus/pci/devices/0000:c1:00.0";

fn gpu(pci_bus: &str) -> Gpu {
    Gpu {
        index: DeviceIndex(0),
        vendor: Vendor::Amd,
        name: "AMD Instinct MI300X".into(),
        memory_bytes: None,
        numa_node: None,
        pci_bus: pci_bus.into(),
        source: "kfd",
    }
}

/// The stand-in library, and a sysfs tree whose values differ from the
/// library's wherever both have a field (so the source of each is seen).
fn fixture() -> (tempfile::TempDir, Arc<AmdSmi>) {
    let dir = tempfile::tempdir().unwrap();
    let lib = common::c_library(dir.path(), "libamd_smi.so", include_str!("../fixtures/amdsmi/standin.c"));
    let smi = AmdSmi::load(Some(lib.as_os_str())).expect("the stand-in loads");
    let files = [
        ("product_name", "AMD Instinct MI300X\n"),
        ("pp_dpm_sclk", "0: 500Mhz\n1: 1400Mhz *\n"),
        ("max_link_speed", "32.0 GT/s PCIe\n"),
        ("max_link_width", "16\n"),
        ("current_link_speed", "32.0 GT/s PCIe\n"),
        ("current_link_width", "16\n"),
        ("gpu_busy_percent", "11\n"),
        ("hwmon/hwmon2/temp2_input", "50000\n"),
        ("hwmon/hwmon2/power1_input", "350000000\n"),
        ("hwmon/hwmon2/freq1_input", "900000000\n"),
    ];
    for (file, text) in files {
        put(dir.path(), &format!("{DEVICE}/{file}"), text);
    }
    (dir, smi)
}

fn put(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn probes(amd: AmdProbe) -> Probes {
    let sources = Sources {
        hz: 10.0,
        gpu: Some(Ok(Arc::new(amd))),
        powercap: Powercap::default(),
        cgroup: (PathBuf::new(), Version::None),
    };
    Probes::new(&sources, None, &[0], &[DeviceIndex(0)])
}

#[test]
fn the_library_gives_what_it_has_and_sysfs_the_rest() {
    let (dir, smi) = fixture();
    let amd = AmdProbe::of(&[gpu("0000:c1:00.0")], dir.path(), Ok(&smi));
    assert!(amd.source().starts_with("amdsmi;"), "{}", amd.source());
    let probes = probes(amd.clone());
    assert_eq!(probes.context.sources["gpu"], amd.source());
    let (_, maxima) = &probes.context.gpus[0];
    assert_eq!(maxima.name.as_deref(), Some("AMD Instinct MI300X"), "the name from sysfs");
    assert_eq!((maxima.sm_clock_max_mhz, maxima.memory_clock_max_mhz), (Some(2100), Some(1300)), "from max_clk");
    assert_eq!((maxima.pcie_gen_max, maxima.pcie_width_max), (Some(5), Some(16)));

    let r = amd.read(DeviceIndex(0));
    let g = |n: &str| r.gauge_of(n);
    assert_eq!((g("utilization_percent"), g("memory_utilization_percent")), (Some(88.0), Some(35.0)));
    assert_eq!(g("memory_used_bytes"), Some((2u64 << 30) as f64));
    assert_eq!(g("temperature_c"), Some(71.0), "no edge sensor: the hotspot");
    assert_eq!((g("sm_clock_mhz"), g("memory_clock_mhz")), (Some(1650.0), Some(1300.0)));
    assert_eq!(g("power_w"), Some(350.0), "power from hwmon: amdsmi_get_power_info is not called");
    assert_eq!((g("pcie_gen"), g("pcie_width")), (Some(5.0), Some(16.0)));
    assert_eq!(r.counter_of("ecc_corrected").map(|c| c.value), Some(5));
    assert_eq!(r.counter_of("ecc_uncorrected").map(|c| c.value), Some(0));
    let names: Vec<&str> = r.gauges.iter().map(|(n, _)| *n).collect();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names.len(), unique.len(), "one value per gauge: {names:?}");

    // 305 mJ per read in the script: the block's energy over a window is
    // the counter's increase between the edges.
    let samples: Vec<_> = (0..11).map(|_| probes.read()).collect();
    let t = block::build(&samples, samples[0].t, samples[10].t, 100, Context { sample_hz: 10.0, ..probes.context });
    let joules = t.gpus[0].energy_j.unwrap();
    assert!((joules - 10.0 * 0.305).abs() < 1e-9, "{joules} J");
}

#[test]
fn a_gpu_the_library_does_not_list_is_read_from_sysfs_alone() {
    let (dir, smi) = fixture();
    put(dir.path(), "sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "42\n");
    let amd = AmdProbe::of(&[gpu("0000:03:00.0")], dir.path(), Ok(&smi));
    assert_eq!(amd.source(), "amdgpu sysfs (no amdsmi: it lists none of these GPUs)");
    assert_eq!(amd.read(DeviceIndex(0)).gauge_of("utilization_percent"), Some(42.0));
}

#[test]
fn without_the_library_sysfs_reads_everything_and_the_block_says_why() {
    let (dir, _) = fixture();
    let why = AmdSmi::load(Some(dir.path().join("missing/libamd_smi.so").as_os_str())).unwrap_err();
    let amd = AmdProbe::of(&[gpu("0000:c1:00.0")], dir.path(), Err(&why));
    assert!(amd.source().starts_with("amdgpu sysfs (no amdsmi: "), "{}", amd.source());
    let r = amd.read(DeviceIndex(0));
    assert_eq!(r.gauge_of("utilization_percent"), Some(11.0), "gpu_busy_percent");
    assert_eq!(r.gauge_of("sm_clock_mhz"), Some(900.0), "freq1_input");
    assert_eq!(probes(amd).context.gpus[0].1.sm_clock_max_mhz, Some(1400), "pp_dpm_sclk");
}
