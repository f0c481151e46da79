//! `--baseline DIR`: each row's mean (a config's, or a bench's with
//! `--rows bench`) against the same row in an earlier set of reports, with a
//! verdict from the 95% confidence intervals.

use super::rows::Row;
use mlb_figures::Sample;
use serde::Serialize;

/// What the confidence intervals say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The current interval lies entirely above the baseline's.
    Faster,
    /// The current interval lies entirely below the baseline's.
    Slower,
    /// The intervals overlap.
    NoDifference,
    /// One side has fewer than two runs: no interval.
    TooFewRuns,
}

impl Verdict {
    /// Words for a table.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoDifference => "no difference",
            Verdict::TooFewRuns => "too few runs",
        }
    }
}

/// One row, now and in the baseline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Row label.
    pub label: String,
    /// This report's statistics.
    pub current: Sample,
    /// The baseline's statistics.
    pub baseline: Sample,
    /// `current.mean / baseline.mean`.
    pub ratio: f64,
    /// From the intervals.
    pub verdict: Verdict,
}

/// The verdict from two samples' 95% confidence intervals.
pub fn verdict(current: &Sample, baseline: &Sample) -> Verdict {
    match (current.ci95, baseline.ci95) {
        (Some((lo, _)), Some((_, base_hi))) if lo > base_hi => Verdict::Faster,
        (Some((_, hi)), Some((base_lo, _))) if hi < base_lo => Verdict::Slower,
        (Some(_), Some(_)) => Verdict::NoDifference,
        _ => Verdict::TooFewRuns,
    }
}

/// Compares the rows present (with a mean) on both sides.
pub fn compare(current: &[Row], baseline: &[Row]) -> Vec<Comparison> {
    current
        .iter()
        .filter_map(|row| {
            let now = row.sample;
            let before = baseline.iter().find(|b| b.label == row.label)?.sample;
            Some(Comparison {
                label: row.label.clone(),
                current: now,
                baseline: before,
                ratio: now.mean? / before.mean?,
                verdict: verdict(&now, &before),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(values: &[f64]) -> Sample {
        Sample::of(values)
    }

    #[test]
    fn verdicts_from_intervals() {
        // Baseline 99, 100, 101: mean 100, sd 1, CI 100 +- 4.303/sqrt(3) = [97.52, 102.48].
        let base = s(&[99.0, 100.0, 101.0]);
        // 109, 110, 111: CI [107.52, 112.48], above the baseline's.
        assert_eq!(verdict(&s(&[109.0, 110.0, 111.0]), &base), Verdict::Faster);
        // 89, 90, 91: CI [87.52, 92.48], below.
        assert_eq!(verdict(&s(&[89.0, 90.0, 91.0]), &base), Verdict::Slower);
        // 102, 103, 104: CI [100.52, 105.48], overlaps [97.52, 102.48].
        assert_eq!(verdict(&s(&[102.0, 103.0, 104.0]), &base), Verdict::NoDifference);
        // Same mean shift but wide spread: 90, 103, 116 overlaps.
        assert_eq!(verdict(&s(&[90.0, 103.0, 116.0]), &base), Verdict::NoDifference);
        assert_eq!(verdict(&s(&[150.0]), &base), Verdict::TooFewRuns);
    }

    #[test]
    fn compares_common_benches() {
        let row = |label: &str, values: &[f64]| Row {
            label: label.into(),
            bench: label.into(),
            args: Default::default(),
            results: values.len(),
            failures: 0,
            stricter: 0,
            sample: Sample::of(values),
            target: None,
            perf: None,
            sd_share: None,
            perf_pass: None,
            sd_pass: None,
        };
        let now = [row("a", &[109.0, 110.0, 111.0]), row("b", &[1.0, 1.0]), row("c", &[])];
        let before = [row("a", &[99.0, 100.0, 101.0]), row("c", &[5.0, 5.0])];
        let cmp = compare(&now, &before);
        assert_eq!(cmp.len(), 1);
        assert_eq!((cmp[0].label.as_str(), cmp[0].ratio, cmp[0].verdict), ("a", 1.1, Verdict::Faster));
    }
}
