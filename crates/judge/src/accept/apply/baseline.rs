//! At least a share of a baseline run, per config. The figure is the ratio
//! of the means (the contract's figure: "at least 90% of the performance
//! measured at installation"), and the 95% confidence intervals of both runs
//! give the interval of that ratio: from the bottom of the run's interval
//! over the top of the baseline's to the top of the run's over the bottom of
//! the baseline's (unbounded above when the baseline's interval reaches 0).
//!
//! `compare: means` (the default) passes a config whose ratio of means is at
//! least `min`, and the note says whether the interval of the ratio lies
//! wholly on one side of `min` (beyond the noise) or reaches it (within the
//! noise: more runs would tell). `compare: intervals` gives the benefit of
//! the doubt: a config fails only when even the top of the ratio's interval
//! is below `min`. With fewer than two runs on a side there is no interval:
//! the means decide, and the note says so.

use super::{subject, Figures, Measure};
use crate::accept::render::number;
use crate::accept::rules::{Comparison, Rule};
use crate::accept::verdict::Verdict;

/// Each config at least `min` of the baseline's.
pub fn baseline(rule: &Rule, figures: &Figures, min: f64, by: Comparison) -> Vec<Verdict> {
    let report = figures.report;
    figures
        .configs(rule)
        .map(|row| {
            let who = subject(&row.label, None, None);
            if row.sample.mean.is_none() {
                return Measure::failed(rule, who, "ratio", "no run of the config counts".into());
            }
            let Some(base) = &report.baseline else {
                return Measure::missing(rule, who, "ratio", "no baseline: pass --baseline DIR".into());
            };
            let Some(cmp) = base.comparisons.iter().find(|c| c.label == row.label) else {
                let note = format!("not in the baseline {}", base.reports.display());
                return Measure::missing(rule, who, "ratio", note);
            };
            let means = cmp.ratio;
            let Some((low, high)) = ratio_interval(cmp.current.ci95, cmp.baseline.ci95) else {
                let note = "ratio of the means (fewer than 2 runs on a side: no interval)".to_string();
                return Measure { measured: means, bound: min, unit: "ratio" }.at_least(rule, who, note);
            };
            let span = format!("the ratio's 95% interval {}..{}", number(Some(low), false), shown(high));
            let noise = if low >= min || high < min { "beyond the noise" } else { "within the noise" };
            match by {
                Comparison::Means => {
                    let note = format!("ratio of the means; {span}: {noise}");
                    Measure { measured: means, bound: min, unit: "ratio" }.at_least(rule, who, note)
                }
                Comparison::Intervals => {
                    let note = format!("top of {span} (means {})", number(Some(means), false));
                    Measure { measured: high, bound: min, unit: "ratio" }.at_least(rule, who, note)
                }
            }
        })
        .collect()
}

/// The interval of `run / baseline` from their 95% intervals: `None` when
/// either has none; the bottom is at least 0 (throughput is never negative)
/// and the top infinite when the baseline's interval reaches 0.
fn ratio_interval(run: Option<(f64, f64)>, baseline: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let ((run_low, run_high), (base_low, base_high)) = (run?, baseline?);
    let low = if base_high > 0.0 { run_low.max(0.0) / base_high } else { 0.0 };
    let high = if base_low > 0.0 { run_high.max(0.0) / base_low } else { f64::INFINITY };
    Some((low, high))
}

/// A bound for a note: `unbounded` for infinity.
fn shown(v: f64) -> String {
    if v.is_finite() {
        number(Some(v), false)
    } else {
        "unbounded".into()
    }
}

#[cfg(test)]
mod tests {
    use super::ratio_interval;

    #[test]
    fn the_ratio_interval_runs_from_the_worst_to_the_best_case() {
        assert_eq!(ratio_interval(Some((80.0, 90.0)), Some((100.0, 120.0))), Some((80.0 / 120.0, 0.9)));
        assert_eq!(ratio_interval(None, Some((100.0, 120.0))), None);
        assert_eq!(ratio_interval(Some((80.0, 90.0)), None), None);
    }

    #[test]
    fn a_baseline_interval_reaching_zero_leaves_the_top_unbounded_not_negative() {
        // Two runs of a baseline give t = 12.7: its interval's bottom can be negative.
        let (low, high) = ratio_interval(Some((-50.0, 90.0)), Some((-20.0, 120.0))).unwrap();
        assert_eq!(low, 0.0);
        assert!(high.is_infinite());
    }
}
