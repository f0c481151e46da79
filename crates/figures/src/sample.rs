//! Sample statistics of throughputs as pandas took them: `n` counts every
//! value, NaN included; mean, sample standard deviation (ddof 1), min and
//! max skip NaN. Plus the 95% confidence interval of the mean (Student t).

use crate::moments::{mean, variance};
use crate::student;
use serde::{Deserialize, Serialize};

/// Statistics of a sample of values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Number of values, NaN included (the original's `n`).
    pub n: usize,
    /// Number of values that are not NaN: the mean and sd are over these.
    pub count: usize,
    /// Arithmetic mean; `None` without a value (or when it is NaN).
    pub mean: Option<f64>,
    /// Sample standard deviation (ddof 1); `None` with fewer than two values
    /// (or when it is NaN, as with an infinite value).
    pub sd: Option<f64>,
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// 95% confidence interval of the mean (Student t, count-1 degrees of
    /// freedom); `None` without a finite sd.
    pub ci95: Option<(f64, f64)>,
}

fn number(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

impl Sample {
    /// Statistics of `values` (which may hold NaN).
    pub fn of(values: &[f64]) -> Sample {
        let kept: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        let count = kept.len();
        let mean = mean(&kept);
        let sd = (count > 1).then(|| variance(&kept, mean, 1).sqrt()).and_then(number);
        let ci95 = sd.filter(|sd| sd.is_finite() && mean.is_finite()).map(|sd| {
            let half = student::quantile(0.975, (count - 1) as f64) * sd / (count as f64).sqrt();
            (mean - half, mean + half)
        });
        Sample {
            n: values.len(),
            count,
            mean: number(mean),
            sd,
            min: kept.iter().copied().reduce(f64::min),
            max: kept.iter().copied().reduce(f64::max),
            ci95,
        }
    }

    /// `sd / mean` (the spread as a share of the mean); `None` when it is
    /// not a number.
    pub fn sd_share(&self) -> Option<f64> {
        self.sd.zip(self.mean).and_then(|(sd, mean)| number(sd / mean))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn hand_computed_sample() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares of deviations sum to 32,
        // sample variance 32/7, sd 2.13809.
        let s = Sample::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!((s.n, s.count, s.mean, s.min, s.max), (8, 8, Some(5.0), Some(2.0), Some(9.0)));
        let sd = s.sd.unwrap();
        assert!(close(sd, (32.0f64 / 7.0).sqrt(), 1e-12));
        assert!(close(sd, 2.138090, 1e-6));
        // t(0.975, 7) = 2.364624; half width = 2.364624 * 2.138090 / sqrt(8) = 1.787488.
        let (lo, hi) = s.ci95.unwrap();
        assert!(close(lo, 5.0 - 1.787488, 1e-5) && close(hi, 5.0 + 1.787488, 1e-5), "{lo} {hi}");
        assert!(close(s.sd_share().unwrap(), 2.138090 / 5.0, 1e-6));
    }

    #[test]
    fn nan_counts_in_n_only_as_pandas() {
        // pandas: Series([90, NaN, 110]) has mean 100, std 14.142136; n is 3.
        let s = Sample::of(&[90.0, f64::NAN, 110.0]);
        assert_eq!((s.n, s.count, s.mean, s.min, s.max), (3, 2, Some(100.0), Some(90.0), Some(110.0)));
        assert!(close(s.sd.unwrap(), 200f64.sqrt(), 1e-12));
        let s = Sample::of(&[f64::NAN, 5.0]);
        assert_eq!((s.n, s.count, s.mean, s.sd, s.ci95), (2, 1, Some(5.0), None, None));
        let s = Sample::of(&[f64::NAN]);
        assert_eq!((s.n, s.count, s.mean, s.sd, s.min, s.sd_share()), (1, 0, None, None, None, None));
        // An infinite value: infinite mean, NaN sd (inf - inf), as pandas.
        let s = Sample::of(&[1.0, f64::INFINITY]);
        assert_eq!((s.mean, s.sd, s.ci95, s.max), (Some(f64::INFINITY), None, None, Some(f64::INFINITY)));
    }

    #[test]
    fn single_value_has_no_spread() {
        let s = Sample::of(&[3.0]);
        assert_eq!((s.n, s.mean, s.sd, s.ci95), (1, Some(3.0), None, None));
        let empty = Sample::of(&[]);
        assert_eq!((empty.n, empty.mean, empty.min), (0, None, None));
    }
}
