//! The `telemetry` block of a report: what the sampler saw of an instance
//! during its timed window, summarised (docs/telemetry.md lists every field).
//! The block's types are the report's ([`mlb_record::contract::telemetry`]);
//! this builds them from the samples.

use super::powercap::is_package_energy;
use super::sample::Sample;
use super::scope::{self, Part, Window};
use mlb_figures::moments::mean;
use mlb_record::contract::telemetry::{
    Energy, GpuTelemetry, Maxima, Metrics, SlotTelemetry, Stats, Telemetry, THROTTLE_FLAG,
};
use mlb_record::reading::reasons::{REASONS, SLOWDOWN};
use statrs::statistics::{Data, OrderStatistics};
use std::collections::BTreeMap;

/// The stats of `values`; `None` when empty.
pub fn stats_of(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let mut data = Data::new(values.to_vec());
    Some(Stats {
        mean: mean(values),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        p95: data.percentile(95),
    })
}

/// The metrics of `part` `i` in `w`.
fn metrics(w: &Window, part: Part, i: usize) -> Metrics {
    let mut stats = BTreeMap::new();
    let mut gauges: Vec<&'static str> = Vec::new();
    for (name, _) in w.inside().filter_map(|s| part(s, i)).flat_map(|r| &r.gauges) {
        if !gauges.contains(name) {
            gauges.push(name);
        }
    }
    for name in gauges {
        if let Some(s) = stats_of(&w.gauge(part, i, name)) {
            stats.insert(name.to_string(), s);
        }
    }
    let rates = w.rates(part, i);
    let mut names: Vec<&str> = rates.iter().map(|r| r.0).collect();
    names.dedup();
    for name in names {
        let values: Vec<f64> = rates.iter().filter(|r| r.0 == name).map(|r| r.2).collect();
        if let Some(s) = stats_of(&values) {
            stats.insert(name.to_string(), s);
        }
    }
    let mut totals = BTreeMap::new();
    for name in w.counter_names(part, i, false) {
        if let Some(d) = w.delta(part, i, name) {
            totals.insert(name.to_string(), d);
        }
    }
    Metrics { stats, totals }
}

/// What the block is built from besides the samples.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Samples per second asked for.
    pub sample_hz: f64,
    /// Sources, as [`Telemetry::sources`].
    pub sources: BTreeMap<String, String>,
    /// The devices of the GPUs sampled, with their maxima.
    pub gpus: Vec<(String, Maxima)>,
}

/// The block of the window `start`..`end` over `items` items.
pub fn build(samples: &[Sample], start: f64, end: f64, items: u64, ctx: Context) -> Telemetry {
    let w = Window { samples, start, end };
    let slot_metrics = metrics(&w, scope::slot, 0);
    let t = |name: &str| slot_metrics.totals.get(name).copied();
    let cpu_throttled_fraction = match (t("cpu_throttled_periods"), t("cpu_periods")) {
        (Some(throttled), Some(periods)) if periods > 0.0 => Some(throttled / periods),
        _ => None,
    };
    let slot = SlotTelemetry { metrics: slot_metrics, cpu_throttled_fraction };
    let gpus: Vec<GpuTelemetry> = ctx
        .gpus
        .iter()
        .enumerate()
        .map(|(i, (device, maxima))| {
            let metrics = metrics(&w, scope::gpu, i);
            let throttle = REASONS
                .iter()
                .filter_map(|&(bit, name)| Some((name.to_string(), w.fraction(scope::gpu, i, bit)?)))
                .collect();
            let below = |gauge: &str, max: Option<u32>| {
                max.is_some_and(|m| w.gauge(scope::gpu, i, gauge).iter().any(|&v| v < f64::from(m)))
            };
            GpuTelemetry {
                device: device.clone(),
                energy_j: metrics.totals.get("energy_mj").map(|mj| mj / 1000.0),
                throttled_fraction: w.fraction(scope::gpu, i, SLOWDOWN),
                degraded_link: below("pcie_gen", maxima.pcie_gen_max) || below("pcie_width", maxima.pcie_width_max),
                maxima: maxima.clone(),
                metrics,
                throttle,
            }
        })
        .collect();
    let per_item = |joules: f64| (items > 0).then(|| joules / items as f64);
    let gpu_joules: Vec<f64> = gpus.iter().filter_map(|g| g.energy_j).collect();
    let package: Vec<f64> =
        slot.metrics.totals.iter().filter(|(n, _)| is_package_energy(n)).map(|(_, uj)| uj / 1e6).collect();
    let energy = if !gpus.is_empty() && gpu_joules.len() == gpus.len() {
        let joules = gpu_joules.iter().sum();
        Some(Energy { joules, joules_per_item: per_item(joules), source: "gpu".into() })
    } else if gpus.is_empty() && !package.is_empty() {
        let joules = package.iter().sum();
        Some(Energy { joules, joules_per_item: per_item(joules), source: "package".into() })
    } else {
        None
    };
    let over = |f: Option<f64>| f.is_some_and(|f| f > THROTTLE_FLAG);
    Telemetry {
        sample_hz: ctx.sample_hz,
        samples: w.inside().count(),
        window_seconds: end - start,
        items,
        sources: ctx.sources,
        throttled: over(slot.cpu_throttled_fraction) || gpus.iter().any(|g| over(g.throttled_fraction)),
        degraded_link: gpus.iter().any(|g| g.degraded_link),
        timeline: super::timeline::timeline(&w, gpus.len()),
        slot,
        gpus,
        energy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_record::reading::{Counter, Reading};

    #[test]
    fn stats_of_values() {
        let s = stats_of(&(1..=100).map(f64::from).collect::<Vec<_>>()).unwrap();
        assert_eq!((s.mean, s.min, s.max), (50.5, 1.0, 100.0));
        assert!((94.0..=96.0).contains(&s.p95), "{}", s.p95);
        assert_eq!(stats_of(&[]), None);
    }

    /// A GPU drawing 200 W (its counter in mJ), link gen 3 of 4, throttled in 2 samples of 10.
    fn gpu_sample(t: f64) -> Sample {
        let mut g = Reading::default();
        g.gauge("power_w", Some(200.0));
        g.gauge("pcie_gen", Some(3.0));
        g.counter("energy_mj", Some((t * 200_000.0) as u64));
        g.reasons = Some(if (3.0..5.0).contains(&t) { 0x20 } else { 0x0 });
        let mut slot = Reading::default();
        slot.counters.push(Counter {
            name: "cpu_ns",
            value: (t * 1.5e9) as u64,
            wraps_at: None,
            rate: Some(("cpu_busy_cores", 1e-9)),
        });
        Sample { t, slot, gpus: vec![g] }
    }

    #[test]
    fn a_gpu_window() {
        let samples: Vec<Sample> = (0..12).map(|k| gpu_sample(k as f64)).collect();
        let maxima = Maxima { pcie_gen_max: Some(4), ..Maxima::default() };
        let ctx = Context { sample_hz: 1.0, gpus: vec![("0".into(), maxima)], ..Context::default() };
        let t = build(&samples, 1.0, 10.0, 900, ctx);
        assert_eq!(t.samples, 10);
        let g = &t.gpus[0];
        assert_eq!(g.energy_j, Some(1800.0));
        assert_eq!(g.throttled_fraction, Some(0.2));
        assert_eq!(g.throttle["sw_thermal_slowdown"], 0.2);
        assert!(g.degraded_link && t.degraded_link && t.throttled);
        let e = t.energy.unwrap();
        assert_eq!((e.joules, e.joules_per_item, e.source.as_str()), (1800.0, Some(2.0), "gpu"));
        assert_eq!(t.slot.metrics.stats["cpu_busy_cores"].mean, 1.5);
        assert_eq!(t.slot.cpu_throttled_fraction, None, "no CFS periods");
    }
}
