//! What a report holds of timed observations (docs/worker.md, "Timing"):
//! their summary (computed by `mlb-figures`' `timing`) and the throughput
//! it gives.

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
    fn throughput_is_items_over_each_time() {
        let s = Summary { avg: 2.5, count: 4, max: 4.0, min: 1.0, sd: 1.0, unit: "s".into() };
        let t = s.throughput(10.0);
        assert_eq!((t.avg, t.min, t.max, t.range), (4.0, 2.5, 10.0, 7.5));
    }
}
