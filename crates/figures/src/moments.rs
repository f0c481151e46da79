//! The one place mlb sums figures, correctly rounded, so that a figure is
//! the same whatever order its values were read in (a folder walk's, a
//! store's, a page's); the arithmetic mean, weighted mean and variance made
//! of that sum; and [`Moments`]: count, mean and sample variance of a
//! sample's finite values, as Welch's test and the regression rule take
//! them.

use serde::Serialize;

/// The sum of `values`, correctly rounded (Shewchuk's algorithm, Python's
/// `math.fsum`), so that it does not depend on their order; an infinite or
/// NaN value makes it infinite or NaN, as a plain sum.
pub fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut finite, mut special) = (fsum::FSum::new(), 0.0);
    for v in values {
        if v.is_finite() {
            finite += v;
        } else {
            special += v;
        }
    }
    if special == 0.0 {
        finite.value()
    } else {
        special
    }
}

/// The arithmetic mean of `values` (NaN without one, as numpy's mean of
/// nothing).
pub fn mean(values: &[f64]) -> f64 {
    sum(values.iter().copied()) / values.len() as f64
}

/// The mean of `values` weighted by their weights (`(weight, value)`
/// pairs); `None` without a weight.
pub fn weighted_mean(values: &[(f64, f64)]) -> Option<f64> {
    let total = sum(values.iter().map(|(w, _)| *w));
    (total > 0.0).then(|| sum(values.iter().map(|(w, v)| w * v)) / total)
}

/// The variance of `values` about `mean` with `ddof` delta degrees of
/// freedom: the sum of the squared deviations over `len - ddof` (1 for the
/// sample variance, 0 for the population's).
pub fn variance(values: &[f64], mean: f64, ddof: usize) -> f64 {
    sum(values.iter().map(|v| (v - mean).powi(2))) / (values.len() - ddof) as f64
}

/// Count, mean and sample variance (ddof 1) of a sample's finite values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    /// Finite values.
    pub n: usize,
    /// Their mean (`None` without one).
    pub mean: Option<f64>,
    /// Their sample variance (`None` with fewer than two).
    pub variance: Option<f64>,
}

impl Moments {
    /// The moments of `values`; NaN and infinite values are left out.
    pub fn of(values: &[f64]) -> Moments {
        let kept: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let n = kept.len();
        let mean = (n > 0).then(|| mean(&kept));
        let variance = mean.filter(|_| n > 1).map(|m| variance(&kept, m, 1));
        Moments { n, mean, variance }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_correctly_rounded_in_any_order() {
        let values = [0.1, 1e16, 0.3, -1e16, 0.2, 1.0 / 3.0];
        let mut reversed = values;
        reversed.reverse();
        assert_eq!(sum(values), sum(reversed));
        // Python: math.fsum(values) is 0.9333333333333333, sum(values) 0.5333333333333333.
        assert_eq!(sum(values), 0.9333333333333333, "the exact sum, rounded");
        assert_eq!(sum([0.1; 10]), 1.0, "a plain sum gives 0.9999999999999999");
        assert_eq!(sum([1.0, f64::INFINITY]), f64::INFINITY);
        assert!(sum([f64::INFINITY, f64::NEG_INFINITY]).is_nan() && sum([f64::NAN, 1.0]).is_nan());
        assert_eq!(sum([]), 0.0);
    }

    #[test]
    fn the_mean_and_variances_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32.
        let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&values), 5.0);
        assert_eq!((variance(&values, 5.0, 0), variance(&values, 5.0, 1)), (4.0, 32.0 / 7.0));
        assert!(mean(&[]).is_nan());
        assert_eq!((weighted_mean(&[(3.0, 1.0), (1.0, 5.0)]), weighted_mean(&[])), (Some(2.0), None));
        let m = Moments::of(&[1.0, f64::NAN, 3.0, f64::INFINITY]);
        assert_eq!((m.n, m.mean, m.variance), (2, Some(2.0), Some(2.0)), "non-finite values are left out");
        assert_eq!(Moments::of(&[5.0]).variance, None);
    }
}
