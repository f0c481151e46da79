//! Statistics over timed observations (docs/worker.md, "Timing").

use crate::contract::report::de::float;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Summary of the observation times, in seconds (a report's `train`).
/// Reading, a `null` (a non-finite number) is NaN.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Mean.
    #[serde(deserialize_with = "float")]
    pub avg: f64,
    /// Number of observations.
    pub count: u64,
    /// Longest.
    #[serde(deserialize_with = "float")]
    pub max: f64,
    /// Shortest.
    #[serde(deserialize_with = "float")]
    pub min: f64,
    /// Population standard deviation.
    #[serde(deserialize_with = "float")]
    pub sd: f64,
    /// `"s"`.
    pub unit: Cow<'static, str>,
}

/// Throughput derived from a [`Summary`] and the items of one observation
/// (a report's `train_item`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// `items / train.avg`.
    #[serde(deserialize_with = "float")]
    pub avg: f64,
    /// `items / train.min`.
    #[serde(deserialize_with = "float")]
    pub max: f64,
    /// `items / train.max`.
    #[serde(deserialize_with = "float")]
    pub min: f64,
    /// `max - min`.
    #[serde(deserialize_with = "float")]
    pub range: f64,
    /// `"items/sec"`.
    pub unit: Cow<'static, str>,
}

impl Summary {
    /// Summarises observation times; `None` when there are none.
    pub fn of(times: &[f64]) -> Option<Self> {
        if times.is_empty() {
            return None;
        }
        let n = times.len() as f64;
        let avg = times.iter().sum::<f64>() / n;
        let var = times.iter().map(|t| (t - avg).powi(2)).sum::<f64>() / n;
        Some(Summary {
            avg,
            count: times.len() as u64,
            max: times.iter().cloned().fold(f64::MIN, f64::max),
            min: times.iter().cloned().fold(f64::MAX, f64::min),
            sd: var.sqrt(),
            unit: "s".into(),
        })
    }

    /// Throughput for `items` processed per observation.
    pub fn throughput(&self, items: f64) -> Throughput {
        let (min, max) = (items / self.max, items / self.min);
        Throughput { avg: items / self.avg, max, min, range: max - min, unit: "items/sec".into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!((s.avg, s.count, s.min, s.max), (2.5, 4, 1.0, 4.0));
        assert!((s.sd - 1.25f64.sqrt()).abs() < 1e-12, "population sd");
        let t = s.throughput(10.0);
        assert_eq!((t.avg, t.min, t.max, t.range), (4.0, 2.5, 10.0, 7.5));
        assert!(Summary::of(&[]).is_none());
    }
}
