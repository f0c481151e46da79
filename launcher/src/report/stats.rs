//! Sample statistics of throughputs: mean, sample standard deviation
//! (ddof 1), min, max and the 95% confidence interval of the mean (Student t).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Statistics of a sample of values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (ddof 1); `None` for a single value.
    pub sd: Option<f64>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// 95% confidence interval of the mean (Student t, n-1 degrees of
    /// freedom); `None` for a single value.
    pub ci95: Option<(f64, f64)>,
}

impl Sample {
    /// Statistics of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Sample> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = (n > 1).then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt());
        let ci95 = sd.map(|sd| {
            let half = t_quantile(0.975, (n - 1) as f64) * sd / (n as f64).sqrt();
            (mean - half, mean + half)
        });
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Sample { n, mean, sd, min, max, ci95 })
    }

    /// `sd / mean` (the spread as a share of the mean).
    pub fn sd_share(&self) -> Option<f64> {
        self.sd.map(|sd| sd / self.mean)
    }
}

/// The `p` quantile of Student's t distribution with `df` degrees of freedom.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).expect("df is positive").inverse_cdf(p)
}

/// Geometric mean of positive values (0 when one is 0); `None` when empty.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
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
        let s = Sample::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!((s.n, s.mean, s.min, s.max), (8, 5.0, 2.0, 9.0));
        let sd = s.sd.unwrap();
        assert!(close(sd, (32.0f64 / 7.0).sqrt(), 1e-12));
        assert!(close(sd, 2.138090, 1e-6));
        // t(0.975, 7) = 2.364624; half width = 2.364624 * 2.138090 / sqrt(8) = 1.787488.
        let (lo, hi) = s.ci95.unwrap();
        assert!(close(lo, 5.0 - 1.787488, 1e-5) && close(hi, 5.0 + 1.787488, 1e-5), "{lo} {hi}");
        assert!(close(s.sd_share().unwrap(), 2.138090 / 5.0, 1e-6));
    }

    #[test]
    fn single_value_has_no_spread() {
        let s = Sample::of(&[3.0]).unwrap();
        assert_eq!((s.n, s.mean, s.sd, s.ci95), (1, 3.0, None, None));
        assert!(Sample::of(&[]).is_none());
    }

    #[test]
    fn geometric_means() {
        assert!(close(geometric_mean(&[1.0, 4.0]).unwrap(), 2.0, 1e-12));
        assert!(close(geometric_mean(&[0.5, 1.0, 2.0]).unwrap(), 1.0, 1e-12));
        assert!(close(geometric_mean(&[2.0, 4.0, 8.0]).unwrap(), 4.0, 1e-12));
        assert_eq!(geometric_mean(&[0.0, 3.0]), Some(0.0));
        assert_eq!(geometric_mean(&[]), None);
    }
}
