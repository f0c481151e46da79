//! How a history chart draws its values (the history page of `mlb serve`,
//! the page `mlb db history --svg` writes): by default each series relative
//! to its own median, so that benches from 2 to 300,000 items/s share one
//! axis and a 15% drop of any of them shows as 0.85; or the values as they
//! are.

use super::history::Series;
use serde::Serialize;

/// The y axis of a history chart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Each value over its series' median (1: the series' usual level).
    #[default]
    Relative,
    /// The values as they are, in the metric's unit.
    Absolute,
}

/// The name of the y axis of a relative chart.
pub const RELATIVE_AXIS: &str = "relative to the bench's median";

impl Scale {
    /// The scale named `text` (`relative`, `absolute`).
    pub fn named(text: &str) -> Option<Scale> {
        match text {
            "relative" => Some(Scale::Relative),
            "absolute" => Some(Scale::Absolute),
            _ => None,
        }
    }

    /// The name of the y axis, for values in `unit`.
    pub fn axis(self, unit: &str) -> String {
        match self {
            Scale::Relative => RELATIVE_AXIS.into(),
            Scale::Absolute => unit.into(),
        }
    }

    /// What each value of `series` is divided by: its median (of its
    /// finite values), or 1 when absolute or when the median is not a
    /// positive number (no point, or a series of zeros).
    pub fn divisor(self, series: &Series) -> f64 {
        if self == Scale::Absolute {
            return 1.0;
        }
        let mut values: Vec<f64> = series.points.iter().map(|p| p.value).filter(|v| v.is_finite()).collect();
        if values.is_empty() {
            return 1.0;
        }
        values.sort_by(f64::total_cmp);
        let mid = values.len() / 2;
        let median = if values.len() % 2 == 1 { values[mid] } else { (values[mid - 1] + values[mid]) / 2.0 };
        if median > 0.0 {
            median
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::history::Point;

    fn series(values: &[f64]) -> Series {
        let points = values
            .iter()
            .enumerate()
            .map(|(i, &value)| Point {
                run: i as i64,
                run_ids: String::new(),
                started: String::new(),
                at: 0,
                n: 1,
                value,
                values: vec![value],
            })
            .collect();
        Series { label: "b".into(), points }
    }

    #[test]
    fn a_series_is_divided_by_its_median_unless_absolute() {
        assert_eq!(Scale::Relative.divisor(&series(&[300_000.0, 255_000.0, 310_000.0])), 300_000.0);
        assert_eq!(Scale::Relative.divisor(&series(&[2.0, 4.0, f64::NAN, 3.0, 1.0])), 2.5);
        assert_eq!(Scale::Absolute.divisor(&series(&[300_000.0])), 1.0);
        assert_eq!(Scale::Relative.divisor(&series(&[0.0, 0.0])), 1.0);
        assert_eq!(Scale::Relative.divisor(&series(&[])), 1.0);
        assert_eq!(Scale::named("absolute"), Some(Scale::Absolute));
        assert_eq!(Scale::named("log"), None);
        assert_eq!(Scale::Relative.axis("items/s"), RELATIVE_AXIS);
    }
}
