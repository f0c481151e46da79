//! This run against its own history (`mlb report --db`): per row, the
//! change of the mean items/s against the last runs of the same system and
//! config in the results store, Welch's p-value, and a regression flag
//! (docs/results.md, "Regressions"). The store fills [`Regressions`]; the
//! report prints it.
//!
//! The regression rule is [`mlb_figures::regression`]'s, the one of every
//! view: the served history page and its API judge each point by it too.

use mlb_figures::regression::{verdict, DROP_THRESHOLD, SIGNIFICANCE};
use mlb_figures::Moments;
use serde::Serialize;

/// The report's rows against their history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Regressions {
    /// The store (its password written as `***`).
    pub store: String,
    /// The system's name in the store.
    pub system: String,
    /// Runs compared with, at most (`--history K`).
    pub history_runs: usize,
    /// A drop larger than this share is a regression, when significant.
    pub threshold: f64,
    /// The significance level of Welch's test.
    pub significance: f64,
    /// One judgement per row of the report with a history.
    pub rows: Vec<Judgement>,
}

impl Regressions {
    /// An empty comparison of `system`'s rows in `store` with `history_runs` runs.
    pub fn new(store: String, system: String, history_runs: usize) -> Regressions {
        Regressions {
            store,
            system,
            history_runs,
            threshold: DROP_THRESHOLD,
            significance: SIGNIFICANCE,
            rows: Vec::new(),
        }
    }
}

/// One row of this run against its history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// The row's label in the report (a config, or a bench with `--rows bench`).
    pub config: String,
    /// This run's instances.
    pub current: Moments,
    /// The instances of the runs compared with, pooled.
    pub history: Moments,
    /// The store's ids of the runs compared with (at most `--history K`), newest first.
    pub runs: Vec<i64>,
    /// Change of the mean, in percent of the history's mean (negative: slower).
    pub change_percent: Option<f64>,
    /// Welch's two-sided p-value (none with fewer than two values on a side).
    pub p_value: Option<f64>,
    /// The mean dropped by more than [`DROP_THRESHOLD`] with `p <` [`SIGNIFICANCE`]
    /// ([`verdict`]).
    pub regression: bool,
}

/// Judges `current` (this run's items/s of a config) against `history`
/// (the same config's items/s in the runs `runs`).
pub fn judge(config: &str, current: &[f64], history: &[f64], runs: Vec<i64>) -> Judgement {
    let (now, before) = (Moments::of(current), Moments::of(history));
    let v = verdict(&now, &before, false);
    Judgement {
        config: config.to_string(),
        current: now,
        history: before,
        runs,
        change_percent: v.change.map(|c| c * 100.0),
        p_value: v.p_value,
        regression: v.regression,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values spread evenly over `mean * (1 ± spread)`, in a shuffled order.
    fn noisy(mean: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n).map(|k| mean * (1.0 + spread * (((k * 7) % n) as f64 / (n - 1) as f64 * 2.0 - 1.0))).collect()
    }

    #[test]
    fn a_slower_run_is_flagged_and_noise_is_not() {
        let history = noisy(100.0, 0.02, 40);
        let slower = judge("vae", &noisy(90.0, 0.02, 8), &history, vec![]);
        assert!(slower.regression, "{slower:?}");
        assert!((slower.change_percent.unwrap() + 10.0).abs() < 1e-9);
        assert!(slower.p_value.unwrap() < 1e-6);
        let noise = judge("vae", &noisy(99.5, 0.02, 8), &history, vec![]);
        assert!(!noise.regression, "{noise:?}");
        assert!(noise.p_value.unwrap() > SIGNIFICANCE, "{noise:?}");
    }

    #[test]
    fn both_the_threshold_and_the_significance_are_needed() {
        // 3% slower, significant: under the threshold.
        let small = judge("vae", &noisy(97.0, 0.001, 8), &noisy(100.0, 0.001, 40), vec![]);
        assert!(small.p_value.unwrap() < SIGNIFICANCE && !small.regression, "{small:?}");
        // 20% slower in two wildly spread instances: not significant.
        let wild = judge("vae", &[20.0, 140.0], &noisy(100.0, 0.5, 10), vec![]);
        assert!(wild.change_percent.unwrap() < -15.0 && !wild.regression, "{wild:?}");
        // Faster is never a regression; one instance gives no p-value.
        assert!(!judge("vae", &noisy(150.0, 0.01, 8), &noisy(100.0, 0.01, 8), vec![]).regression);
        let single = judge("vae", &[50.0], &noisy(100.0, 0.01, 8), vec![]);
        assert_eq!((single.p_value, single.regression), (None, false));
        assert_eq!(judge("vae", &[50.0], &[], vec![]).change_percent, None);
    }
}
