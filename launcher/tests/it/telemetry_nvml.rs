//! NVIDIA telemetry without a GPU: through a STAND-IN `libnvidia-ml.so`
//! (launcher/tests/fixtures/nvml/standin.c, compiled here with `cc`) that exports the
//! NVML calls the sampler makes and returns scripted values, a throttling
//! episode among them. It is loaded through nvml-wrapper's own loading path
//! (`Nvml::builder().lib_path`), as `MLB_NVML_LIBRARY` loads a library.
//! The real NVML is not exercised here: this host has no NVIDIA GPU.

use crate::common;

use mlb::check::Status;
use mlb::gpu::nvidia::NvidiaProbe;
use mlb::gpu::{open_nvml, DeviceIndex, Vendor};
use mlb::host::{detect, HostKind, Probe};
use mlb::telemetry::block::{self, Context};
use mlb::telemetry::{Probes, Sampler, Sources};
use mlb_record::contract::window;
use mlb_record::contract::Edge;
use std::ffi::OsStr;
use std::sync::Arc;
use std::time::Duration;

/// The stand-in, compiled into a folder of its own (each test its own copy:
/// the script's counters are per copy).
fn stand_in() -> (tempfile::TempDir, Arc<NvidiaProbe>) {
    let dir = tempfile::tempdir().unwrap();
    let source = include_str!("../fixtures/nvml/standin.c");
    let lib = common::c_library(dir.path(), "libnvidia-ml.so", source);
    let nvml = open_nvml(Some(lib.as_os_str())).expect("the stand-in loads through nvml-wrapper");
    let probe = Arc::new(NvidiaProbe::of(nvml));
    (dir, probe)
}

#[test]
fn a_missing_library_is_a_reason_not_a_crash() {
    let e = open_nvml(Some(OsStr::new("/nonexistent/libnvidia-ml.so"))).unwrap_err();
    assert!(e.starts_with("NVML did not load: ") && e.len() > 20, "{e}");
}

/// `MLB_NVML_LIBRARY` is honoured by everything that asks NVML, through the
/// one handle of the process: detection (a tree without sysfs: only NVML can
/// find the GPU), the doctor, `system.json`'s versions and the telemetry.
/// The handle is opened once per process, so the checks run in a child
/// process of this test binary started with the variable set: under `cargo
/// test` every test of the binary shares one process, and another may have
/// opened NVML (without the variable) first.
#[test]
fn the_override_library_serves_detection_doctor_versions_and_telemetry() {
    const NAME: &str = "telemetry_nvml::the_override_library_serves_detection_doctor_versions_and_telemetry";
    let dir = tempfile::tempdir().unwrap();
    if std::env::var_os("MLB_NVML_LIBRARY").is_none() {
        let lib = common::c_library(dir.path(), "libnvidia-ml.so", include_str!("../fixtures/nvml/standin.c"));
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--test-threads=1", "--nocapture"])
            .env("MLB_NVML_LIBRARY", &lib)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success(), "{out}{}", String::from_utf8_lossy(&child.stderr));
        assert!(out.contains("1 passed"), "the child ran the test: {out}");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let host = detect(&Probe { root: root.path().to_path_buf(), library: true, ..Probe::this_host() });
    assert_eq!(host.kind, HostKind::Ngc);
    let gpu = &host.gpus[..];
    assert_eq!((gpu.len(), gpu[0].name.as_str(), gpu[0].source), (1, "Stand-in GPU", "nvml"));
    assert_eq!(gpu[0].memory_bytes, Some(80 << 30));
    let nvidia = Vendor::Nvidia.ops();
    assert_eq!(nvidia.versions(root.path()).0, "550.54.15", "the driver's version through NVML");
    let checks = nvidia.checks(gpu);
    let found: Vec<(&str, Status)> = checks.iter().map(|c| (c.name.as_str(), c.status)).collect();
    assert_eq!(found, [("gpu0 idle", Status::Pass), ("gpu0 pcie link", Status::Warn)], "gen 3 of 4: {checks:?}");
    let sources = Sources::open(&host, 10.0);
    assert_eq!(sources.warning(), None);
    let probes = Probes::new(&sources, None, &[0], &[DeviceIndex(0)]);
    assert_eq!(probes.context.sources["gpu"], "nvml");
    assert_eq!(probes.context.gpus[0].1.name.as_deref(), Some("Stand-in GPU"));
    assert_eq!(probes.read().gpus[0].gauge_of("power_average_w"), Some(240.0));
}

#[test]
fn the_scripted_episode_comes_out_of_the_block() {
    let (_dir, probe) = stand_in();
    let probes = Probes::of_gpus(probe, vec![DeviceIndex(0)], Context { sample_hz: 10.0, ..Context::default() });
    // 40 samples (calls 0..39); the episode is calls 10..19. The window runs
    // from sample 2 to sample 37: 36 samples, 10 of them throttled.
    let samples: Vec<_> = (0..40)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(2));
            probes.read()
        })
        .collect();
    let (start, end) = (samples[2].t, samples[37].t);
    let t = block::build(&samples, start, end, 720, probes.context.clone());
    assert_eq!(t.samples, 36);
    let g = &t.gpus[0];
    assert_eq!(g.maxima.name.as_deref(), Some("Stand-in GPU"));
    assert_eq!(
        (g.maxima.sm_clock_max_mhz, g.maxima.pcie_gen_max, g.maxima.pcie_width_max),
        (Some(1980), Some(4), Some(16))
    );
    assert_eq!(g.throttle["sw_thermal_slowdown"], 10.0 / 36.0);
    assert_eq!(g.throttle["sw_power_cap"], 0.0);
    assert_eq!(g.throttled_fraction, Some(10.0 / 36.0));
    assert!(t.throttled, "over 1% of the window");
    let sm = g.metrics.stats["sm_clock_mhz"];
    assert_eq!((sm.min, sm.max), (1005.0, 1410.0), "the clock dropped during the episode");
    assert_eq!(g.metrics.stats["temperature_c"].max, 85.0);
    assert_eq!(g.metrics.stats["power_w"].mean, 250.0, "the instant field");
    assert_eq!(g.metrics.stats["power_average_w"].mean, 240.0);
    assert_eq!(g.metrics.stats["utilization_percent"].mean, 97.0);
    assert_eq!(g.metrics.stats["memory_used_bytes"].mean, (10u64 << 30) as f64);
    assert!(g.degraded_link && t.degraded_link, "gen 3 of 4");
    // 250 W over the window.
    let joules = g.energy_j.unwrap();
    assert!((joules / (250.0 * (end - start)) - 1.0).abs() < 0.02, "{joules} J in {} s", end - start);
    let energy = t.energy.as_ref().unwrap();
    assert_eq!(energy.source, "gpu");
    assert!((energy.joules_per_item.unwrap() - joules / 720.0).abs() < 1e-9);
    assert!(g.metrics.totals["ecc_corrected"] >= 0.0 && g.metrics.totals["ecc_uncorrected"] == 0.0);
    let throttled = &t.timeline.series["gpu0.throttled"];
    assert!(throttled.contains(&Some(1.0)) && throttled.contains(&Some(0.0)));
}

#[test]
fn the_sampler_scopes_energy_and_errors_to_the_edges() {
    let (_dir, probe) = stand_in();
    let sampler = Sampler::start(Probes::of_gpus(probe, vec![DeviceIndex(0)], Context::default()), 100.0);
    std::thread::sleep(Duration::from_millis(300));
    let start = window::now();
    sampler.sink().edge(Edge::Start { at: start });
    std::thread::sleep(Duration::from_millis(600));
    let end = window::now();
    sampler.sink().edge(Edge::End { at: end, items: 1200 });
    let t = sampler.finish().expect("both edges were announced");
    let g = &t.gpus[0];
    assert!((t.window_seconds - (end - start)).abs() < 1e-9);
    let joules = g.energy_j.unwrap();
    assert!((joules / (250.0 * t.window_seconds) - 1.0).abs() < 0.02, "{joules} J in {} s", t.window_seconds);
    // 20 corrected errors a second in the script.
    let ecc = g.metrics.totals["ecc_corrected"];
    assert!((ecc - 20.0 * t.window_seconds).abs() <= 1.5, "{ecc} errors in {} s", t.window_seconds);
    assert!(t.samples >= 30, "{} samples at 100 Hz in 0.6 s", t.samples);
    // One XID 79 in the script, 0.5 s after NVML was loaded: inside the window.
    assert_eq!(g.metrics.totals["xid_events"], 1.0, "{:?}", g.metrics.totals);
    assert_eq!(g.metrics.stats["xid_last"].max, 79.0);
    assert_eq!(t.items, 1200);
}

#[test]
fn no_end_edge_no_block() {
    let (_dir, probe) = stand_in();
    let sampler = Sampler::start(Probes::of_gpus(probe, vec![DeviceIndex(0)], Context::default()), 100.0);
    sampler.sink().edge(Edge::Start { at: window::now() });
    std::thread::sleep(Duration::from_millis(50));
    assert!(sampler.finish().is_none(), "an instance that stopped inside its window gets no block");
}
