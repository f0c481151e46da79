//! The regression rule, the one of every view (`mlb report --db`, `mlb db
//! history`, the served history page and its API; docs/results.md,
//! "Regressions"): a figure regressed when it got worse by more than a
//! bound *and* beyond the noise of its history.

use crate::moments::Moments;
use crate::welch::p_value;

/// Runs of the same system and config a run is compared with, by default.
pub const HISTORY_RUNS: usize = 5;

/// A drop of the mean larger than this share is a regression (when significant).
pub const DROP_THRESHOLD: f64 = 0.05;

/// A drop is significant when Welch's p-value is below this.
pub const SIGNIFICANCE: f64 = 0.05;

/// A figure against its history under the regression rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// Change of the mean, as a share of the history's mean (negative: lower).
    pub change: Option<f64>,
    /// Welch's two-sided p-value (none with fewer than two values on a side).
    pub p_value: Option<f64>,
    /// The figure got worse by more than [`DROP_THRESHOLD`] with `p <` [`SIGNIFICANCE`].
    pub regression: bool,
}

/// The regression rule: `now` regressed against `before` when its mean is
/// worse by more than [`DROP_THRESHOLD`] of theirs (lower, or higher when
/// `lower_is_better`) and beyond the noise (Welch's `p <` [`SIGNIFICANCE`]).
pub fn verdict(now: &Moments, before: &Moments, lower_is_better: bool) -> Verdict {
    let change = now.mean.zip(before.mean.filter(|m| *m != 0.0 && m.is_finite())).map(|(n, b)| (n - b) / b);
    let p_value = p_value(now, before);
    let worse = change.map(|c| if lower_is_better { c } else { -c });
    let regression = worse.is_some_and(|w| w > DROP_THRESHOLD) && p_value.is_some_and(|p| p < SIGNIFICANCE);
    Verdict { change, p_value, regression }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values spread evenly over `mean * (1 ± spread)`, in a shuffled order.
    fn noisy(mean: f64, spread: f64, n: usize) -> Moments {
        Moments::of(
            &(0..n)
                .map(|k| mean * (1.0 + spread * (((k * 7) % n) as f64 / (n - 1) as f64 * 2.0 - 1.0)))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn a_drop_needs_both_the_bound_and_the_noise() {
        let history = noisy(100.0, 0.02, 40);
        let slower = verdict(&noisy(90.0, 0.02, 8), &history, false);
        assert!(slower.regression && (slower.change.unwrap() + 0.1).abs() < 1e-9, "{slower:?}");
        assert!(!verdict(&noisy(99.5, 0.02, 8), &history, false).regression, "noise");
        // 3% slower, significant: under the bound.
        let small = verdict(&noisy(97.0, 0.001, 8), &noisy(100.0, 0.001, 40), false);
        assert!(small.p_value.unwrap() < SIGNIFICANCE && !small.regression, "{small:?}");
        // 6% slower within a 16% noise: over the bound, not significant.
        let noise = verdict(&noisy(94.0, 0.08, 4), &noisy(100.0, 0.08, 20), false);
        assert!(noise.change.unwrap() < -DROP_THRESHOLD && !noise.regression, "{noise:?}");
    }

    #[test]
    fn lower_is_better_turns_the_rule_around() {
        let (higher, base) = (noisy(120.0, 0.01, 8), noisy(100.0, 0.01, 8));
        assert!(!verdict(&higher, &base, false).regression);
        assert!(verdict(&higher, &base, true).regression);
        assert!(!verdict(&Moments::of(&[50.0]), &base, false).regression, "one value: no p-value");
    }
}
