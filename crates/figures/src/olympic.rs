//! The olympic mean of a config's runs, as MLPerf Training's rules define a
//! benchmark result: the runs' times to quality sorted, the fastest and the
//! slowest dropped, the mean of the rest. One run that did not converge may
//! count as the slowest (and is then the one dropped); two or more make the
//! result invalid. At least three runs are needed, so that one is left.

use crate::moments::{mean, variance};
use mlb_record::fix::Fix;

/// Runs an olympic mean needs: one kept after the fastest and slowest are dropped.
pub const MIN_RUNS: usize = 3;

/// Non-converged runs an olympic mean allows (counted as the slowest).
pub const MAX_NOT_CONVERGED: usize = 1;

/// A config's result over its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Olympic {
    /// The mean time to quality of the runs kept, seconds.
    pub mean: f64,
    /// Runs in all.
    pub runs: usize,
    /// Runs kept (all but the fastest and the slowest).
    pub kept: usize,
    /// The spread of the converged runs.
    pub spread: Spread,
}

/// The spread of the converged runs' times to quality.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The fastest, seconds.
    pub min: f64,
    /// The slowest converged, seconds.
    pub max: f64,
    /// Their sample standard deviation, seconds (`None` for one run).
    pub stdev: Option<f64>,
}

/// Why a config has no olympic mean.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OlympicError {
    /// Fewer runs than [`MIN_RUNS`].
    #[error("{runs} run(s): an olympic mean needs at least {MIN_RUNS}")]
    TooFew {
        /// Runs there were.
        runs: usize,
    },
    /// More non-converged runs than [`MAX_NOT_CONVERGED`].
    #[error("{count} of {runs} runs did not converge (at most {MAX_NOT_CONVERGED} may): the result is invalid")]
    NotConverged {
        /// Runs that did not converge.
        count: usize,
        /// Runs in all.
        runs: usize,
    },
}

impl Fix for OlympicError {
    fn fix(&self) -> Option<String> {
        match self {
            OlympicError::TooFew { .. } => Some(format!("run with --runs {MIN_RUNS} or more")),
            OlympicError::NotConverged { .. } => None,
        }
    }
}

/// Runs dropped at each end before a mean (the fastest and the slowest).
pub const DROPPED: usize = 1;

/// The olympic mean of `sorted` (ascending): the mean of the values left
/// without the first and last [`DROPPED`] (NaN when none is left, as numpy's
/// mean of nothing). MLPerf's RCP check takes its points' means so.
pub fn olympic_mean(sorted: &[f64]) -> f64 {
    if sorted.len() <= 2 * DROPPED {
        return f64::NAN;
    }
    mean(&sorted[DROPPED..sorted.len() - DROPPED])
}

/// The spread of `times` (converged runs' seconds); `None` when empty.
pub fn spread(times: &[f64]) -> Option<Spread> {
    let min = times.iter().copied().reduce(f64::min)?;
    let max = times.iter().copied().reduce(f64::max)?;
    let stdev = (times.len() > 1).then(|| variance(times, mean(times), 1).sqrt());
    Some(Spread { min, max, stdev })
}

/// The olympic mean of `runs`: each run's time to quality, `None` for one
/// that did not converge.
pub fn olympic(runs: &[Option<f64>]) -> Result<Olympic, OlympicError> {
    if runs.len() < MIN_RUNS {
        return Err(OlympicError::TooFew { runs: runs.len() });
    }
    let mut times: Vec<f64> = runs.iter().flatten().copied().collect();
    let count = runs.len() - times.len();
    if count > MAX_NOT_CONVERGED {
        return Err(OlympicError::NotConverged { count, runs: runs.len() });
    }
    times.sort_by(f64::total_cmp);
    let spread = spread(&times).expect("at least two converged runs");
    // A non-converged run is the slowest, and the one dropped at that end.
    times.extend(std::iter::repeat_n(f64::INFINITY, count));
    Ok(Olympic { mean: olympic_mean(&times), runs: runs.len(), kept: runs.len() - 2 * DROPPED, spread })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_olympic_mean_drops_one_value_at_each_end() {
        assert_eq!(olympic_mean(&[1.0, 10.0, 20.0, 1000.0]), 15.0);
        assert!(olympic_mean(&[1.0, 2.0]).is_nan());
    }

    #[test]
    fn five_runs_drop_the_fastest_and_the_slowest() {
        let o = olympic(&[Some(50.0), Some(10.0), Some(30.0), Some(20.0), Some(40.0)]).unwrap();
        assert_eq!((o.mean, o.runs, o.kept), (30.0, 5, 3));
        assert_eq!((o.spread.min, o.spread.max), (10.0, 50.0));
        assert!((o.spread.stdev.unwrap() - 250f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn one_non_converged_run_is_the_slowest_dropped_two_are_invalid() {
        let o = olympic(&[Some(50.0), None, Some(30.0), Some(20.0), Some(10.0)]).unwrap();
        assert_eq!((o.mean, o.kept), ((20.0 + 30.0 + 50.0) / 3.0, 3), "10 dropped as fastest, the failure as slowest");
        assert_eq!(o.spread.max, 50.0);
        let err = olympic(&[Some(1.0), None, None, Some(2.0), Some(3.0)]).unwrap_err();
        assert_eq!(err, OlympicError::NotConverged { count: 2, runs: 5 });
        assert!(err.to_string().contains("invalid"));
    }

    #[test]
    fn fewer_than_three_runs_have_no_olympic_mean() {
        assert_eq!(olympic(&[Some(1.0), Some(2.0)]).unwrap_err(), OlympicError::TooFew { runs: 2 });
        assert!(olympic(&[Some(1.0), Some(2.0)]).unwrap_err().fix().unwrap().contains("--runs 3"));
        assert_eq!(olympic(&[Some(3.0), None, Some(1.0)]).unwrap().mean, 3.0);
        assert_eq!(spread(&[]), None);
        assert_eq!(spread(&[2.0]).unwrap().stdev, None);
    }
}
