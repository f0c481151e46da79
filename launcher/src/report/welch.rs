//! Welch's t-test: whether two samples' means differ, without assuming their
//! variances are equal (docs/results.md, "Regressions").

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

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
        let kept = || values.iter().copied().filter(|v| v.is_finite());
        let n = kept().count();
        let mean = (n > 0).then(|| kept().sum::<f64>() / n as f64);
        let variance = mean.filter(|_| n > 1).map(|m| kept().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64);
        Moments { n, mean, variance }
    }

    /// The moments of `n` values whose mean is `mean` and the mean of whose
    /// squares is `mean_of_squares` (as SQL's `AVG(x)` and `AVG(x * x)`
    /// give them).
    pub fn from_sums(n: usize, mean: Option<f64>, mean_of_squares: Option<f64>) -> Moments {
        let mean = mean.filter(|_| n > 0);
        let variance = mean
            .zip(mean_of_squares)
            .filter(|_| n > 1)
            .map(|(m, sq)| ((sq - m * m) * n as f64 / (n - 1) as f64).max(0.0));
        Moments { n, mean, variance }
    }

    /// The moments of the values of all of `parts` together, exactly as
    /// [`Moments::of`] would give them for the values pooled.
    pub fn pooled(parts: impl IntoIterator<Item = Moments>) -> Moments {
        let parts: Vec<(f64, f64, f64)> = parts
            .into_iter()
            .filter_map(|p| Some((p.n as f64, p.mean?, p.variance.unwrap_or(0.0))))
            .filter(|(n, _, _)| *n > 0.0)
            .collect();
        let n: f64 = parts.iter().map(|(n, _, _)| n).sum();
        if n == 0.0 {
            return Moments { n: 0, mean: None, variance: None };
        }
        let mean = parts.iter().map(|(k, m, _)| k * m).sum::<f64>() / n;
        let squares: f64 = parts.iter().map(|(k, m, v)| (k - 1.0) * v + k * (m - mean).powi(2)).sum();
        let variance = (n > 1.0).then(|| squares / (n - 1.0));
        Moments { n: n as usize, mean: Some(mean), variance }
    }

    /// The moments of the values each multiplied by `factor`.
    pub fn scaled(self, factor: f64) -> Moments {
        Moments { n: self.n, mean: self.mean.map(|m| m * factor), variance: self.variance.map(|v| v * factor * factor) }
    }
}

/// The two-sided p-value of Welch's t-test that `a` and `b` have the same
/// mean; `None` when a side has fewer than two values. Two samples without
/// any spread give 1 when their means are equal and 0 when they differ.
pub fn p_value(a: &Moments, b: &Moments) -> Option<f64> {
    let (ma, va) = (a.mean?, a.variance?);
    let (mb, vb) = (b.mean?, b.variance?);
    let (sa, sb) = (va / a.n as f64, vb / b.n as f64);
    let se2 = sa + sb;
    if se2 == 0.0 {
        return Some(if ma == mb { 1.0 } else { 0.0 });
    }
    let t = (ma - mb) / se2.sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = se2 * se2 / (sa * sa / (a.n - 1) as f64 + sb * sb / (b.n - 1) as f64);
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Moments, b: Moments) -> bool {
        let near = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            (x, y) => x == y,
        };
        a.n == b.n && near(a.mean, b.mean) && near(a.variance, b.variance)
    }

    #[test]
    fn moments_from_sums_and_pooled_parts_are_those_of_the_values() {
        let parts = [vec![98.0, 101.5, 100.25], vec![90.0], vec![], vec![104.0, 95.5]];
        let all: Vec<f64> = parts.concat();
        let pooled = Moments::pooled(parts.iter().map(|p| Moments::of(p)));
        assert!(close(pooled, Moments::of(&all)), "{pooled:?} against {:?}", Moments::of(&all));
        for p in &parts {
            let n = p.len();
            let mean = (n > 0).then(|| p.iter().sum::<f64>() / n as f64);
            let squares = (n > 0).then(|| p.iter().map(|v| v * v).sum::<f64>() / n as f64);
            assert!(close(Moments::from_sums(n, mean, squares), Moments::of(p)), "{p:?}");
        }
        let halves: Vec<f64> = all.iter().map(|v| v / 2.0).collect();
        assert!(close(Moments::of(&all).scaled(0.5), Moments::of(&halves)));
        assert_eq!(Moments::pooled([]), Moments { n: 0, mean: None, variance: None });
    }

    #[test]
    fn p_values_match_the_integrated_t_tail() {
        // The first example of Wikipedia's "Welch's t-test": t = -2.455,
        // df = 24.99, p = 0.02138 (the t density's tail integrated numerically).
        // a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
        // b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
        let a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
        let b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
        let p = p_value(&Moments::of(&a), &Moments::of(&b)).unwrap();
        assert!((p - 0.021378).abs() < 1e-5, "{p}");
        // Unequal sizes and variances: a = [1, 2, 3, 4], b = [2, 4, 6, 8, 10, 12]:
        // t = -2.7136, df = 6.595, p = 0.031824.
        let p = p_value(&Moments::of(&[1.0, 2.0, 3.0, 4.0]), &Moments::of(&[2.0, 4.0, 6.0, 8.0, 10.0, 12.0])).unwrap();
        assert!((p - 0.031824).abs() < 1e-5, "{p}");
    }

    #[test]
    fn too_few_or_no_spread() {
        let one = Moments::of(&[5.0, f64::NAN]);
        assert_eq!((one.n, one.mean, one.variance), (1, Some(5.0), None));
        assert_eq!(p_value(&one, &Moments::of(&[1.0, 2.0])), None);
        let flat = Moments::of(&[3.0, 3.0]);
        assert_eq!(p_value(&flat, &Moments::of(&[3.0, 3.0, 3.0])), Some(1.0));
        assert_eq!(p_value(&flat, &Moments::of(&[4.0, 4.0])), Some(0.0));
        assert_eq!(Moments::of(&[]).mean, None);
    }
}
