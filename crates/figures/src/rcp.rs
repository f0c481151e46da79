//! The statistics of the RCP check, as `mlperf_logging.rcp_checker` computes
//! them (numpy and scipy), so that both give the same figures.

use crate::moments::{mean, variance};
use crate::student;

/// Significance of the one-sided test: a submission faster than the
/// reference with p at most this is flagged.
pub const ALPHA: f64 = 0.05;

/// Width at which the search for the smallest acceptable mean stops, in the
/// unit of the convergence points.
pub const TOLERANCE: f64 = 0.0001;

/// Population standard deviation (numpy's `std`, ddof 0).
pub fn population_stdev(values: &[f64]) -> f64 {
    variance(values, mean(values), 0).sqrt()
}

/// One-sided p-value that a sample of mean `mean1` (`n1` values) converges
/// faster than one of mean `mean2` (`n2` values), both of standard deviation
/// `stdev`: Student's two-sample t-test with pooled variance (scipy's
/// `ttest_ind_from_stats`, equal_var), its two-sided p halved for t < 0 and
/// taken from 1 otherwise. NaN when the test is undefined (no degrees of
/// freedom, or no spread).
pub fn one_sided_p(mean1: f64, n1: f64, mean2: f64, n2: f64, stdev: f64) -> f64 {
    let df = n1 + n2 - 2.0;
    let variance = stdev * stdev;
    let pooled = ((n1 - 1.0) * variance + (n2 - 1.0) * variance) / df;
    let t = (mean1 - mean2) / (pooled * (1.0 / n1 + 1.0 / n2)).sqrt();
    let Some(two_sided) = student::two_sided_p(t, df) else { return f64::NAN };
    if t < 0.0 {
        two_sided / 2.0
    } else {
        1.0 - two_sided / 2.0
    }
}

/// The smallest mean a submission of `n_submission` counted runs may have
/// without converging significantly faster than a reference of mean `mean`,
/// spread `stdev` and `n_reference` counted runs: a bisection between 0 and
/// `mean` to [`TOLERANCE`] (the reference's mean when it has no spread).
///
/// The order of the test's arguments is the package's (the candidate mean
/// with the reference's count), which keeps its figures.
pub fn min_acceptable_mean(mean: f64, stdev: f64, n_reference: f64, n_submission: f64) -> f64 {
    if stdev == 0.0 {
        return mean;
    }
    let (mut low, mut high) = (0.0, mean);
    let mut mid = (low + high) / 2.0;
    while high - low > TOLERANCE {
        if one_sided_p(mid, n_reference, mean, n_submission, stdev) > ALPHA {
            high = mid;
        } else {
            low = mid;
        }
        mid = (low + high) / 2.0;
    }
    mid
}

/// Linear interpolation at `x` between `(x0, y0)` and `(x1, y1)`, clamped to
/// the ends (numpy's `interp` on two points, with its rounding).
pub fn interpolate(x: f64, (x0, y0): (f64, f64), (x1, y1): (f64, f64)) -> f64 {
    if x >= x1 {
        return y1;
    }
    if x < x0 {
        return y0;
    }
    let slope = (y1 - y0) / (x1 - x0);
    slope * (x - x0) + y0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_population_stdev_divides_by_n() {
        assert_eq!(population_stdev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 2.0);
    }

    #[test]
    fn a_much_faster_mean_is_significant_and_an_equal_one_is_not() {
        assert!(one_sided_p(10.0, 8.0, 20.0, 8.0, 2.0) < 1e-6);
        assert!((one_sided_p(20.0, 8.0, 20.0, 8.0, 2.0) - 0.5).abs() < 1e-12);
        assert!(one_sided_p(30.0, 8.0, 20.0, 8.0, 2.0) > 0.99);
    }

    #[test]
    fn the_smallest_acceptable_mean_lies_where_the_test_turns() {
        let (mean, stdev, n) = (40.0, 1.5, 8.0);
        let min = min_acceptable_mean(mean, stdev, n, 3.0);
        assert!(min < mean && min > mean - 4.0 * stdev, "{min}");
        assert!(one_sided_p(min + 2.0 * TOLERANCE, n, mean, 3.0, stdev) > ALPHA);
        assert!(one_sided_p(min - 2.0 * TOLERANCE, n, mean, 3.0, stdev) <= ALPHA);
        assert_eq!(min_acceptable_mean(mean, 0.0, n, 3.0), mean, "no spread: the mean itself");
    }

    #[test]
    fn interpolation_is_linear_between_the_points_and_clamped_outside() {
        assert_eq!(interpolate(150.0, (100.0, 10.0), (200.0, 20.0)), 15.0);
        assert_eq!(interpolate(50.0, (100.0, 10.0), (200.0, 20.0)), 10.0);
        assert_eq!(interpolate(250.0, (100.0, 10.0), (200.0, 20.0)), 20.0);
    }
}
