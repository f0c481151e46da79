//! The reference points with their statistics, and the verdict on a
//! submission's runs.

use super::set::RcpSet;
use mlb_figures::olympic::{olympic_mean, DROPPED};
use mlb_figures::rcp::{interpolate, min_acceptable_mean, population_stdev};
use serde::Serialize;
use std::fmt;

/// The convergence point the package gives a run that did not converge (a
/// slowest run, dropped by the olympic mean when it is the only one).
const NOT_CONVERGED: f64 = 1e9;

/// A reference point (or one interpolated between two) with what the check
/// uses of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointStats {
    /// The point's name (`BENCH_interp_BS` for an interpolated one).
    pub name: String,
    /// Global batch size.
    pub batch_size: f64,
    /// Olympic mean of the reference runs' convergence points.
    pub mean: f64,
    /// Population standard deviation of all the reference runs.
    pub stdev: f64,
    /// The smallest submission mean that is not significantly faster.
    pub min_mean: f64,
    /// `mean / min_mean`: how much faster than the reference a submission may
    /// converge.
    pub max_speedup: f64,
}

/// Which reference points a check uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The points left after pruning (the package's default): a point
    /// converging slower than the interpolation of its neighbours is dropped,
    /// as are points of batch sizes below the fastest-converging one.
    Pruned,
    /// Every point.
    Full,
}

/// Which reference the submission was compared with; the messages are the
/// package's.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// A point of the submission's batch size.
    Found,
    /// A point interpolated between the neighbouring batch sizes.
    Interpolated,
    /// No point at or above the batch size (or one below it was beaten):
    /// a reference at this batch size is needed.
    Missing {
        /// The submission's batch size.
        batch_size: f64,
    },
    /// Only larger batch sizes have points, and the submission converged no
    /// faster than the smallest.
    SlowerOnSmallerBatch,
    /// The set has no point.
    NoPoints,
    /// More than one run did not converge.
    InsufficientConvergence,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Found => f.write_str("RCP found"),
            Outcome::Interpolated => f.write_str("RCP Interpolation"),
            Outcome::Missing { batch_size } => {
                write!(f, "Missing RCP, please submit RCP with BS = {}", whole(*batch_size))
            }
            Outcome::SlowerOnSmallerBatch => f.write_str("RCP not found but slower convergence on smaller batch size"),
            Outcome::NoPoints => f.write_str("Cannot find any RCPs"),
            Outcome::InsufficientConvergence => f.write_str("Insufficient convergence"),
        }
    }
}

/// The verdict on a submission.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Which reference was used, or why none could be.
    pub outcome: Outcome,
    /// The submission converges no faster than the reference allows.
    pub passed: bool,
    /// By how much a score should be scaled when the submission converged
    /// faster than the reference's mean but within its allowed speed-up (1
    /// otherwise).
    pub norm_factor: f64,
    /// The reference compared with.
    pub reference: Option<PointStats>,
    /// Olympic mean of the submission's convergence points.
    pub submission_mean: Option<f64>,
}

/// The processed reference points of one benchmark.
#[derive(Clone, Debug)]
pub struct Checker {
    /// Counted runs of a submission: its runs less the two olympic drops.
    counted_runs: f64,
    /// Runs a submission is made of.
    submission_runs: usize,
    benchmark: String,
    /// Every point, by batch size (ties in the file's order).
    full: Vec<PointStats>,
    /// The points left after pruning, in the same order.
    pruned: Vec<PointStats>,
}

impl Checker {
    /// Processes the points of `set` for submissions of `submission_runs`
    /// runs (MLPerf fixes it per benchmark; mlb uses the `--runs` count).
    pub fn new(set: &RcpSet, submission_runs: usize) -> Checker {
        let counted_runs = submission_runs as f64 - 2.0 * DROPPED as f64;
        let mut full: Vec<PointStats> = set
            .points
            .iter()
            .map(|point| {
                let mut runs = point.converged_at.clone();
                runs.sort_by(f64::total_cmp);
                let mean = olympic_mean(&runs);
                let stdev = population_stdev(&runs);
                let n_reference = runs.len() as f64 - 2.0 * DROPPED as f64;
                let min_mean = min_acceptable_mean(mean, stdev, n_reference, counted_runs);
                PointStats {
                    name: point.name.clone(),
                    batch_size: point.batch_size,
                    mean,
                    stdev,
                    min_mean,
                    max_speedup: mean / min_mean,
                }
            })
            .collect();
        full.sort_by(|a, b| a.batch_size.total_cmp(&b.batch_size));
        let benchmark = set.points.first().map(|p| p.benchmark.clone()).unwrap_or_default();
        let mut checker = Checker { counted_runs, submission_runs, benchmark, full, pruned: Vec::new() };
        checker.pruned = checker.prune();
        checker
    }

    /// The points a pass uses, by batch size.
    pub fn points(&self, pass: Pass) -> &[PointStats] {
        match pass {
            Pass::Pruned => &self.pruned,
            Pass::Full => &self.full,
        }
    }

    /// The verdict on runs of global batch size `batch_size`, each run's
    /// convergence point or `None` for a run that did not converge.
    pub fn check(&self, batch_size: f64, runs: &[Option<f64>], pass: Pass) -> Verdict {
        let not_converged = runs.iter().filter(|r| r.is_none()).count();
        if not_converged > 1 {
            return Verdict {
                outcome: Outcome::InsufficientConvergence,
                passed: false,
                norm_factor: 1.0,
                reference: None,
                submission_mean: None,
            };
        }
        let mut points: Vec<f64> = runs.iter().map(|r| r.unwrap_or(NOT_CONVERGED)).collect();
        points.sort_by(f64::total_cmp);
        let data = self.points(pass);
        let at = |pred: &dyn Fn(f64) -> bool, better: &dyn Fn(f64, f64) -> bool| {
            data.iter().filter(|p| pred(p.batch_size)).fold(None::<&PointStats>, |best, p| match best {
                Some(b) if !better(p.batch_size, b.batch_size) => Some(b),
                _ => Some(p),
            })
        };
        if let Some(point) = data.iter().find(|p| p.batch_size == batch_size) {
            return judge(Outcome::Found, point.clone(), &points);
        }
        let below = at(&|bs| bs < batch_size, &|a, b| a > b);
        let above = at(&|bs| bs > batch_size, &|a, b| a < b);
        match (below, above) {
            (Some(low), Some(high)) => judge(Outcome::Interpolated, self.interpolated(batch_size, low, high), &points),
            (Some(_), None) => Verdict {
                outcome: Outcome::Missing { batch_size },
                passed: false,
                norm_factor: 1.0,
                reference: None,
                submission_mean: None,
            },
            (None, Some(_)) => {
                let smallest = at(&|_| true, &|a, b| a < b).expect("a point above exists");
                let verdict = judge(Outcome::SlowerOnSmallerBatch, smallest.clone(), &points);
                if verdict.passed {
                    verdict
                } else {
                    Verdict { outcome: Outcome::Missing { batch_size }, ..verdict }
                }
            }
            (None, None) => Verdict {
                outcome: Outcome::NoPoints,
                passed: false,
                norm_factor: 1.0,
                reference: None,
                submission_mean: None,
            },
        }
    }

    /// The point of batch size `batch_size` interpolated between `low` and
    /// `high`: mean and spread linear in the batch size, its smallest
    /// acceptable mean computed as the package does (with twice the
    /// submission's runs as the reference's count).
    fn interpolated(&self, batch_size: f64, low: &PointStats, high: &PointStats) -> PointStats {
        let ends =
            |f: fn(&PointStats) -> f64| interpolate(batch_size, (low.batch_size, f(low)), (high.batch_size, f(high)));
        let mean = ends(|p| p.mean);
        let stdev = ends(|p| p.stdev);
        let min_mean = min_acceptable_mean(mean, stdev, 2.0 * self.submission_runs as f64, self.counted_runs);
        PointStats {
            name: format!("{}_interp_{}", self.benchmark, whole(batch_size)),
            batch_size,
            mean,
            stdev,
            min_mean,
            max_speedup: mean / min_mean,
        }
    }

    /// The package's pruning: drop the points below the batch size of the
    /// fastest-converging one, then walk the rest dropping each point that
    /// converges slower than its neighbours' interpolation at its batch size.
    fn prune(&self) -> Vec<PointStats> {
        let Some(fastest) = self.full.iter().reduce(|best, p| if p.mean < best.mean { p } else { best }) else {
            return Vec::new();
        };
        let mut kept: Vec<&PointStats> = self.full.iter().filter(|p| p.batch_size >= fastest.batch_size).collect();
        let mut i = 1;
        while i + 1 < kept.len() {
            let (low, high) = (kept[i - 1], kept[i + 1]);
            let mean = interpolate(kept[i].batch_size, (low.batch_size, low.mean), (high.batch_size, high.mean));
            if kept[i].mean > mean {
                kept.remove(i);
                i -= 1;
            }
            i += 1;
        }
        self.full.iter().filter(|p| kept.iter().any(|k| k.batch_size == p.batch_size)).cloned().collect()
    }
}

/// The verdict against `reference`: the submission's olympic mean at least
/// the reference's smallest acceptable mean (`mean / max_speedup`, as the
/// package writes it).
fn judge(outcome: Outcome, reference: PointStats, sorted_runs: &[f64]) -> Verdict {
    let mean = olympic_mean(sorted_runs);
    let ratio = reference.mean / mean;
    let norm_factor = if ratio < 1.0 { 1.0 } else { ratio };
    let passed = mean >= reference.mean / reference.max_speedup;
    Verdict { outcome, passed, norm_factor, reference: Some(reference), submission_mean: Some(mean) }
}

/// A batch size as the package prints it: integral ones without a fraction.
fn whole(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three points: 64 converges in about 20 epochs, 128 in 30 (slower
    /// than the line from 64 to 256, so pruned), 256 in 32.
    fn set() -> RcpSet {
        RcpSet::parse(
            r#"{"b_256": {"Benchmark": "b", "BS": 256, "Hyperparams": {}, "Epochs to converge": [31, 32, 32, 33, 32]},
                "b_64": {"Benchmark": "b", "BS": 64, "Hyperparams": {}, "Epochs to converge": [19, 20, 20, 21, 20]},
                "b_128": {"Benchmark": "b", "BS": 128, "Hyperparams": {}, "Epochs to converge": [29, 30, 30, 31, 30]}}"#,
            "test",
        )
        .unwrap()
    }

    fn runs(points: &[f64]) -> Vec<Option<f64>> {
        points.iter().map(|&p| Some(p)).collect()
    }

    #[test]
    fn points_are_by_batch_size_and_the_one_above_the_line_is_pruned() {
        let checker = Checker::new(&set(), 5);
        let names = |pass| checker.points(pass).iter().map(|p| p.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names(Pass::Full), ["b_64", "b_128", "b_256"]);
        assert_eq!(names(Pass::Pruned), ["b_64", "b_256"]);
        let p = &checker.points(Pass::Full)[0];
        assert_eq!(p.mean, 20.0);
        assert!(p.min_mean < 20.0 && (p.max_speedup - 20.0 / p.min_mean).abs() < 1e-12);
    }

    #[test]
    fn runs_as_fast_as_the_reference_pass_and_much_faster_ones_fail() {
        let checker = Checker::new(&set(), 5);
        let same = checker.check(64.0, &runs(&[20.0, 20.0, 21.0, 19.0, 20.0]), Pass::Pruned);
        assert_eq!((same.outcome.clone(), same.passed, same.norm_factor), (Outcome::Found, true, 1.0));
        let fast = checker.check(64.0, &runs(&[10.0, 10.0, 11.0, 9.0, 10.0]), Pass::Pruned);
        assert!(!fast.passed);
        assert_eq!(fast.norm_factor, 2.0, "the reference's mean over the submission's");
    }

    #[test]
    fn a_batch_size_between_points_is_judged_against_their_interpolation() {
        let checker = Checker::new(&set(), 5);
        let v = checker.check(160.0, &runs(&[24.0, 24.0, 24.0, 24.0, 24.0]), Pass::Pruned);
        assert_eq!(v.outcome, Outcome::Interpolated);
        let reference = v.reference.unwrap();
        assert_eq!(reference.name, "b_interp_160");
        assert_eq!(reference.mean, 20.0 + 12.0 * 96.0 / 192.0);
        assert!(!v.passed, "24 epochs is far faster than the 26 interpolated");
    }

    #[test]
    fn outside_the_points_a_reference_is_asked_for_unless_a_smaller_batch_converges_slower() {
        let checker = Checker::new(&set(), 5);
        let above = checker.check(512.0, &runs(&[40.0; 5]), Pass::Pruned);
        assert_eq!(above.outcome.to_string(), "Missing RCP, please submit RCP with BS = 512");
        let slow_small = checker.check(32.0, &runs(&[25.0; 5]), Pass::Pruned);
        assert_eq!((slow_small.outcome, slow_small.passed), (Outcome::SlowerOnSmallerBatch, true));
        let fast_small = checker.check(32.0, &runs(&[5.0; 5]), Pass::Pruned);
        assert_eq!((fast_small.outcome.to_string().starts_with("Missing RCP"), fast_small.passed), (true, false));
    }

    #[test]
    fn one_run_that_did_not_converge_is_dropped_and_two_fail_the_check() {
        let checker = Checker::new(&set(), 5);
        let mut one = runs(&[20.0, 20.0, 21.0, 19.0]);
        one.push(None);
        assert!(checker.check(64.0, &one, Pass::Pruned).passed);
        one.push(None);
        let two = checker.check(64.0, &one, Pass::Pruned);
        assert_eq!((two.outcome, two.passed), (Outcome::InsufficientConvergence, false));
    }
}
