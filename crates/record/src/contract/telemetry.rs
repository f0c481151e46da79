//! The report's `telemetry` block as types: what the launcher's sampler
//! saw of an instance over its timed window, summarised. The launcher
//! builds it (`mlb_run::telemetry::block`) and sets it on the worker's
//! report; `mlb report` reads it back. docs/telemetry.md lists every field.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The share of a window above which an instance is flagged as throttled.
pub const THROTTLE_FLAG: f64 = 0.01;

/// Mean, min, max and 95th percentile of a metric over the window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean.
    pub mean: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// 95th percentile.
    pub p95: f64,
}

/// The metrics of one part (the slot, or a GPU).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Gauges and rates, by name.
    #[serde(default)]
    pub stats: BTreeMap<String, Stats>,
    /// Counter increases over the window, by name.
    #[serde(default)]
    pub totals: BTreeMap<String, f64>,
}

/// The slot's telemetry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlotTelemetry {
    /// Its metrics.
    #[serde(flatten)]
    pub metrics: Metrics,
    /// Share of the CFS periods of the window in which the group was throttled.
    pub cpu_throttled_fraction: Option<f64>,
}

/// One GPU's telemetry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuTelemetry {
    /// The device (its index on the host).
    pub device: String,
    /// Name and maxima.
    #[serde(flatten)]
    pub maxima: Maxima,
    /// Its metrics.
    #[serde(flatten)]
    pub metrics: Metrics,
    /// Share of the samples in each throttle reason.
    #[serde(default)]
    pub throttle: BTreeMap<String, f64>,
    /// Share of the samples with any slowdown reason.
    pub throttled_fraction: Option<f64>,
    /// The link ran below its generation or width at some sample.
    #[serde(default)]
    pub degraded_link: bool,
    /// Energy over the window, joules (its energy counter at both edges).
    pub energy_j: Option<f64>,
}

/// The energy of the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Energy {
    /// Joules.
    pub joules: f64,
    /// Joules per item of the timed observations.
    pub joules_per_item: Option<f64>,
    /// `gpu`: the instance's GPUs' counters; `package`: the CPU packages'
    /// (the whole host's, every process on it counted).
    pub source: String,
}

/// The `telemetry` block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Telemetry {
    /// Samples per second asked for.
    pub sample_hz: f64,
    /// Samples inside the window.
    pub samples: usize,
    /// The window's length, seconds.
    pub window_seconds: f64,
    /// Items of the timed observations.
    pub items: u64,
    /// What each part was read from (`cgroup-v1 /mlb-run/slot0`, `nvml`,
    /// `powercap`) or why it was not.
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
    /// The slot.
    pub slot: SlotTelemetry,
    /// The instance's GPUs.
    #[serde(default)]
    pub gpus: Vec<GpuTelemetry>,
    /// Energy of the window, when some counter covered it.
    pub energy: Option<Energy>,
    /// Some GPU, or the slot's CPU quota, throttled more than
    /// [`THROTTLE_FLAG`] of the window.
    #[serde(default)]
    pub throttled: bool,
    /// Some GPU's link ran degraded.
    #[serde(default)]
    pub degraded_link: bool,
    /// At most [`Timeline::POINTS`] points across the window.
    #[serde(default)]
    pub timeline: Timeline,
}

/// What a device's library says of it once: its name and maxima.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Maxima {
    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub name: Option<String>,
    /// The highest SM clock, MHz.
    pub sm_clock_max_mhz: Option<u32>,
    /// The highest memory clock, MHz.
    pub memory_clock_max_mhz: Option<u32>,
    /// The highest PCIe generation of the device and its slot.
    pub pcie_gen_max: Option<u32>,
    /// The widest PCIe link of the device and its slot.
    pub pcie_width_max: Option<u32>,
}

/// A timeline: times and series of equal length.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Seconds since the window started, the middle of each slice.
    pub t: Vec<f64>,
    /// Values by series (`null` where a slice had none).
    #[serde(flatten)]
    pub series: BTreeMap<String, Vec<Option<f64>>>,
}

impl Timeline {
    /// The most points a timeline holds.
    pub const POINTS: usize = 200;
}
