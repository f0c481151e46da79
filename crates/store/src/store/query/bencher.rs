//! Bencher Metric Format (BMF) JSON, for `mlb db export --format bencher`:
//! `{"BENCH": {"MEASURE": {"value": V, "lower_value": L, "upper_value": U}}}`
//! (<https://bencher.dev/docs/reference/bencher-metric-format/>). One
//! document holds one run: `bencher run --adapter json` takes it as the
//! results of one run of one testbed.

use serde::Serialize;
use serde_json::{Map, Value};

/// The measure of throughput, in items/s (Bencher's built-in `throughput`).
pub const THROUGHPUT: &str = "throughput";

/// The measure of energy, in joules per item.
pub const ENERGY: &str = "energy-per-item";

/// One measure of one benchmark: the mean, with the smallest and largest
/// instance's figure as bounds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measure {
    /// The benchmark's name (its bench and config).
    #[serde(skip)]
    pub benchmark: String,
    /// The measure's slug ([`THROUGHPUT`] or [`ENERGY`]).
    #[serde(skip)]
    pub measure: &'static str,
    /// The mean.
    pub value: f64,
    /// The smallest instance's figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_value: Option<f64>,
    /// The largest instance's figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_value: Option<f64>,
}

/// The BMF document of `measures` (non-finite values are left out: JSON has
/// no NaN, and Bencher would refuse the document).
pub fn document(measures: &[Measure]) -> String {
    let mut doc = Map::new();
    for m in measures.iter().filter(|m| m.value.is_finite()) {
        let entry = doc.entry(m.benchmark.clone()).or_insert_with(|| Value::Object(Map::new()));
        let finite = |v: Option<f64>| v.filter(|v| v.is_finite());
        let shown = Measure { lower_value: finite(m.lower_value), upper_value: finite(m.upper_value), ..m.clone() };
        entry
            .as_object_mut()
            .expect("an object")
            .insert(m.measure.into(), serde_json::to_value(shown).expect("serialises"));
    }
    format!("{}\n", serde_json::to_string_pretty(&Value::Object(doc)).expect("serialises"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmarks_hold_their_measures() {
        let m = |benchmark: &str, measure, value, lower| Measure {
            benchmark: benchmark.into(),
            measure,
            value,
            lower_value: lower,
            upper_value: Some(f64::INFINITY),
        };
        let doc = document(&[
            m("vae", THROUGHPUT, 100.5, Some(90.0)),
            m("vae", ENERGY, 0.25, None),
            m("wlm \"q\"", THROUGHPUT, f64::NAN, None),
        ]);
        let v: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"vae": {"throughput": {"value": 100.5, "lower_value": 90.0}, "energy-per-item": {"value": 0.25}}})
        );
    }
}
