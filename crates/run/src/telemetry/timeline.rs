//! The downsampled timeline of a window: at most [`Timeline::POINTS`]
//! points, each the mean of the samples in its slice of the window, for the
//! charts of `mlb report --html`.

use super::scope::{self, Window};
use mlb_record::contract::telemetry::Timeline;
use mlb_record::reading::reasons::SLOWDOWN;
use std::collections::BTreeMap;

/// The slot's series, by name.
const SLOT_SERIES: [&str; 4] = ["cpu_busy_cores", "memory_bytes", "cpu_mhz", "package_w"];
/// Each GPU's series (`gpu<i>.<name>`); `throttled` is the share of the
/// slice's samples with a slowdown reason.
const GPU_SERIES: [&str; 5] = ["power_w", "sm_clock_mhz", "temperature_c", "utilization_percent", "throttled"];

/// The timeline of `w` with `gpus` GPUs.
pub fn timeline(w: &Window, gpus: usize) -> Timeline {
    let inside: Vec<_> = w.inside().collect();
    let span = w.end - w.start;
    let n = inside.len().min(Timeline::POINTS);
    if n == 0 || span <= 0.0 {
        return Timeline::default();
    }
    let slice = |t: f64| (((t - w.start) / span * n as f64) as usize).min(n - 1);
    let mut sums: BTreeMap<String, Vec<(f64, u32)>> = BTreeMap::new();
    let mut add = |name: String, t: f64, v: f64| {
        let e = &mut sums.entry(name).or_insert_with(|| vec![(0.0, 0); n])[slice(t)];
        e.0 += v;
        e.1 += 1;
    };
    for s in &inside {
        for name in SLOT_SERIES {
            if let Some(v) = s.slot.gauge_of(name) {
                add(name.to_string(), s.t, v);
            }
        }
        for (i, g) in s.gpus.iter().enumerate().take(gpus) {
            for name in GPU_SERIES {
                let v = match name {
                    "throttled" => g.reasons.map(|r| f64::from(u8::from(r & SLOWDOWN != 0))),
                    _ => g.gauge_of(name),
                };
                if let Some(v) = v {
                    add(format!("gpu{i}.{name}"), s.t, v);
                }
            }
        }
    }
    for (name, t, v) in w.rates(scope::slot, 0) {
        if SLOT_SERIES.contains(&name) {
            add(name.to_string(), t, v);
        }
    }
    let series = sums
        .into_iter()
        .map(|(name, slices)| (name, slices.into_iter().map(|(sum, k)| (k > 0).then(|| sum / k as f64)).collect()))
        .collect();
    let t = (0..n).map(|k| (k as f64 + 0.5) * span / n as f64).collect();
    Timeline { t, series }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::sample::Sample;
    use mlb_record::reading::Reading;

    #[test]
    fn at_most_200_points_each_a_mean() {
        let samples: Vec<Sample> = (0..1000)
            .map(|k| {
                let mut slot = Reading::default();
                slot.gauge("cpu_mhz", Some(if k < 500 { 1000.0 } else { 3000.0 }));
                let g = Reading { reasons: Some(if k >= 900 { 0x4 } else { 0 }), ..Reading::default() };
                Sample { t: k as f64 / 10.0, slot, gpus: vec![g] }
            })
            .collect();
        let w = Window { samples: &samples, start: 0.0, end: 99.9 };
        let tl = timeline(&w, 1);
        assert_eq!(tl.t.len(), 200);
        let mhz = &tl.series["cpu_mhz"];
        assert_eq!(mhz.len(), 200);
        assert_eq!((mhz[0], mhz[199]), (Some(1000.0), Some(3000.0)));
        let throttled = &tl.series["gpu0.throttled"];
        assert_eq!((throttled[0], throttled[199]), (Some(0.0), Some(1.0)));
        let short = Window { samples: &samples[..5], start: 0.0, end: 0.4 };
        assert_eq!(timeline(&short, 1).t.len(), 5, "no more points than samples");
    }
}
