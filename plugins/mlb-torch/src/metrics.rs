//! Named metric series kept for the report (`metrics`: {name: last values}).

use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};

/// How many values of each metric the report keeps.
pub const KEPT: usize = 10;

/// The last [`KEPT`] values of each named metric.
#[derive(Debug, Default, Clone)]
pub struct Metrics {
    series: BTreeMap<&'static str, VecDeque<f64>>,
}

impl Metrics {
    /// Records one value of `name`, dropping the oldest beyond [`KEPT`].
    pub fn push(&mut self, name: &'static str, value: f64) {
        let series = self.series.entry(name).or_default();
        if series.len() == KEPT {
            series.pop_front();
        }
        series.push_back(value);
    }

    /// The `metrics` report object (non-finite values become `null`).
    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .series
            .iter()
            .map(|(name, values)| {
                let values = values.iter().map(|&v| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number));
                (name.to_string(), Value::Array(values.collect()))
            })
            .collect();
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_values_per_name() {
        let mut m = Metrics::default();
        for i in 0..15 {
            m.push("psnr", i as f64);
        }
        m.push("nan", f64::NAN);
        let json = m.to_json();
        assert_eq!(json["psnr"].as_array().unwrap().len(), KEPT);
        assert_eq!(json["psnr"][0], 5.0);
        assert_eq!(json["psnr"][9], 14.0);
        assert_eq!(json["nan"][0], Value::Null);
    }
}
