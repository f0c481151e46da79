//! Scoping samples to the timed window: gauges sampled inside it, counters
//! differenced at its exact edges, rates of change between samples.
//!
//! A counter's value at an edge is interpolated linearly between the
//! samples on either side of it (the sampler reads every source as soon as
//! it hears of an edge, so the two are milliseconds apart), and a counter
//! that wrapped between two samples is taken to have wrapped once.

use super::sample::Sample;
use mlb_record::reading::{Counter, Reading};

/// One part of every sample: the slot, or one GPU.
pub type Part = fn(&Sample, usize) -> Option<&Reading>;

/// The slot part.
pub fn slot(s: &Sample, _: usize) -> Option<&Reading> {
    Some(&s.slot)
}

/// The part of GPU `i`.
pub fn gpu(s: &Sample, i: usize) -> Option<&Reading> {
    s.gpus.get(i)
}

/// The timed window and the samples around it.
#[derive(Clone, Copy, Debug)]
pub struct Window<'s> {
    /// Every sample, in time order.
    pub samples: &'s [Sample],
    /// The first edge, seconds.
    pub start: f64,
    /// The last edge, seconds.
    pub end: f64,
}

/// How much a counter went up from `a` to `b`.
pub fn increase(a: u64, b: u64, wraps_at: Option<u64>) -> f64 {
    match wraps_at {
        Some(w) if b < a => (w - a.min(w) + b) as f64,
        _ => b.saturating_sub(a) as f64,
    }
}

impl Window<'_> {
    /// The samples inside the window, edges included.
    pub fn inside(&self) -> impl Iterator<Item = &Sample> + '_ {
        self.samples.iter().filter(|s| s.t >= self.start && s.t <= self.end)
    }

    /// The values of gauge `name` of `part` (index `i`) inside the window.
    pub fn gauge(&self, part: Part, i: usize, name: &str) -> Vec<f64> {
        self.inside().filter_map(|s| part(s, i)?.gauge_of(name)).collect()
    }

    /// Consecutive readings of counter `name` of `part`: `(t0, c0, t1, c1)`.
    fn pairs<'a>(
        &'a self,
        part: Part,
        i: usize,
        name: &'a str,
    ) -> impl Iterator<Item = (f64, Counter, f64, Counter)> + 'a {
        let read = move |s: &Sample| part(s, i).and_then(|r| r.counter_of(name).copied()).map(|c| (s.t, c));
        let readings: Vec<(f64, Counter)> = self.samples.iter().filter_map(read).collect();
        (1..readings.len()).map(move |k| (readings[k - 1].0, readings[k - 1].1, readings[k].0, readings[k].1))
    }

    /// How much counter `name` of `part` went up between the edges; `None`
    /// unless samples bracket both edges.
    pub fn delta(&self, part: Part, i: usize, name: &str) -> Option<f64> {
        let mut total = 0.0;
        let (mut from, mut to) = (f64::INFINITY, f64::NEG_INFINITY);
        for (t0, c0, t1, c1) in self.pairs(part, i, name) {
            let (lo, hi) = (t0.max(self.start), t1.min(self.end));
            if t1 <= t0 || hi < lo {
                continue;
            }
            total += increase(c0.value, c1.value, c0.wraps_at) * (hi - lo) / (t1 - t0);
            from = from.min(t0);
            to = to.max(t1);
        }
        (from <= self.start && to >= self.end).then_some(total)
    }

    /// The rates of every rated counter of `part` between consecutive
    /// samples whose midpoint is inside the window: `(name, midpoint, rate)`.
    pub fn rates(&self, part: Part, i: usize) -> Vec<(&'static str, f64, f64)> {
        let mut out = Vec::new();
        for name in self.counter_names(part, i, true) {
            for (t0, c0, t1, c1) in self.pairs(part, i, name) {
                let mid = (t0 + t1) / 2.0;
                if let (Some((rate, factor)), true) = (c0.rate, t1 > t0 && mid >= self.start && mid <= self.end) {
                    out.push((rate, mid, increase(c0.value, c1.value, c0.wraps_at) / (t1 - t0) * factor));
                }
            }
        }
        out
    }

    /// The names of the counters of `part` (only those with a rate, when
    /// `rated`), in the order first read.
    pub fn counter_names(&self, part: Part, i: usize, rated: bool) -> Vec<&'static str> {
        let mut names = Vec::new();
        for c in self.samples.iter().filter_map(|s| part(s, i)).flat_map(|r| &r.counters) {
            if (!rated || c.rate.is_some()) && !names.contains(&c.name) {
                names.push(c.name);
            }
        }
        names
    }

    /// The fraction of the samples inside the window (of `part` with
    /// reasons) that had any of `bits`.
    pub fn fraction(&self, part: Part, i: usize, bits: u64) -> Option<f64> {
        let reasons: Vec<u64> = self.inside().filter_map(|s| part(s, i)?.reasons).collect();
        (!reasons.is_empty()).then(|| reasons.iter().filter(|r| *r & bits != 0).count() as f64 / reasons.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64, energy: u64, wraps_at: Option<u64>) -> Sample {
        let mut slot = Reading::default();
        slot.counters.push(Counter { name: "e", value: energy, wraps_at, rate: Some(("w", 1.0)) });
        slot.gauge("g", Some(t));
        Sample { t, slot, gpus: vec![] }
    }

    #[test]
    fn counters_are_interpolated_at_the_edges() {
        // 100 units per second, sampled every second; the window is 0.5 .. 2.25.
        let samples: Vec<Sample> = (0..4).map(|k| sample(k as f64, 100 * k, None)).collect();
        let w = Window { samples: &samples, start: 0.5, end: 2.25 };
        assert!((w.delta(slot, 0, "e").unwrap() - 175.0).abs() < 1e-9);
        assert_eq!(w.gauge(slot, 0, "g"), [1.0, 2.0], "gauges inside only");
        let rates = w.rates(slot, 0);
        assert_eq!(rates, [("w", 0.5, 100.0), ("w", 1.5, 100.0)]);
        // Samples that do not reach an edge give no delta.
        let w = Window { samples: &samples, start: 0.5, end: 3.5 };
        assert_eq!(w.delta(slot, 0, "e"), None);
    }

    #[test]
    fn a_wrapping_counter_wraps_once() {
        assert_eq!(increase(990, 10, Some(1000)), 20.0);
        assert_eq!(increase(990, 10, None), 0.0, "a counter that does not wrap went back: a reset, no increase");
        let samples = vec![sample(0.0, 900, Some(1000)), sample(1.0, 100, Some(1000))];
        let w = Window { samples: &samples, start: 0.0, end: 1.0 };
        assert_eq!(w.delta(slot, 0, "e"), Some(200.0));
    }

    #[test]
    fn reason_fractions() {
        let samples: Vec<Sample> = (0..8)
            .map(|k| {
                let g = Reading { reasons: Some(if k % 4 == 0 { 0x4 } else { 0x1 }), ..Reading::default() };
                Sample { t: k as f64, slot: Reading::default(), gpus: vec![g] }
            })
            .collect();
        let w = Window { samples: &samples, start: 0.0, end: 7.0 };
        assert_eq!(w.fraction(gpu, 0, 0x4), Some(0.25));
        assert_eq!(w.fraction(gpu, 0, 0x4 | 0x1), Some(1.0));
        assert_eq!(w.fraction(gpu, 1, 0x4), None, "no such GPU");
    }
}
