//! Sample statistics of throughputs as pandas took them: `n` counts every
//! value, NaN included; mean, sample standard deviation (ddof 1), min and
//! max skip NaN. Plus the 95% confidence interval of the mean (Student t).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Statistics of a sample of values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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
        let kept = || values.iter().copied().filter(|v| !v.is_nan());
        let count = kept().count();
        let mean = kept().sum::<f64>() / count as f64;
        let sd = (count > 1).then(|| (kept().map(|v| (mean - v).powi(2)).sum::<f64>() / (count - 1) as f64).sqrt());
        let sd = sd.and_then(number);
        let ci95 = sd.filter(|sd| sd.is_finite() && mean.is_finite()).map(|sd| {
            let half = t_quantile(0.975, (count - 1) as f64) * sd / (count as f64).sqrt();
            (mean - half, mean + half)
        });
        Sample {
            n: values.len(),
            count,
            mean: number(mean),
            sd,
            min: kept().reduce(f64::min),
            max: kept().reduce(f64::max),
            ci95,
        }
    }

    /// `sd / mean` (the spread as a share of the mean); `None` when it is
    /// not a number.
    pub fn sd_share(&self) -> Option<f64> {
        self.sd.zip(self.mean).and_then(|(sd, mean)| number(sd / mean))
    }
}

/// The `p` quantile of Student's t distribution with `df` degrees of freedom.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).expect("df is positive").inverse_cdf(p)
}

/// Geometric mean as the original computed PG: the product of the values
/// raised to `1 / count`, NaN values left out (pandas' `prod()` and
/// `count()`). Without a value it is 1 (`1.0 ** (1 / 0)` was `1.0 ** inf`
/// in numpy).
pub fn geometric_mean(values: &[f64]) -> f64 {
    let kept: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if kept.is_empty() {
        return 1.0;
    }
    kept.iter().product::<f64>().powf(1.0 / kept.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values from a printed t table.
        for (df, want) in
            [(1.0, 12.706), (2.0, 4.303), (4.0, 2.776), (7.0, 2.365), (9.0, 2.262), (29.0, 2.045), (120.0, 1.980)]
        {
            assert!(close(t_quantile(0.975, df), want, 5e-4), "df {df}: {}", t_quantile(0.975, df));
        }
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

    #[test]
    fn geometric_means_as_the_original() {
        assert!(close(geometric_mean(&[1.0, 4.0]), 2.0, 1e-12));
        assert!(close(geometric_mean(&[0.5, 1.0, 2.0]), 1.0, 1e-12));
        assert!(close(geometric_mean(&[2.0, f64::NAN, 4.0, 8.0]), 4.0, 1e-12));
        assert_eq!(geometric_mean(&[0.0, 3.0]), 0.0);
        assert_eq!(geometric_mean(&[]), 1.0);
        assert_eq!(geometric_mean(&[f64::NAN]), 1.0);
    }
}
