//! The geometric mean: the score of `mlb report` (the original's PG) and of
//! `mlb db compare` over the benches of a system.

use crate::moments::weighted_mean;

/// Geometric mean as the original computed PG: the product of the values
/// raised to `1 / count`, NaN values left out (pandas' `prod()` and
/// `count()`); `None` without a value (the original's PG was then
/// `1.0 ** inf`, 1: [`geometric_mean`]).
pub fn of(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let kept: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
    (!kept.is_empty()).then(|| kept.iter().product::<f64>().powf(1.0 / kept.len() as f64))
}

/// The original's PG: [`of`] `values`, and 1 without one.
pub fn geometric_mean(values: &[f64]) -> f64 {
    of(values.iter().copied()).unwrap_or(1.0)
}

/// The geometric mean of `values` weighted by their weights (`(weight,
/// value)` pairs, positive values): the exponential of the weighted mean
/// of their logarithms, the score of a score profile; `None` without a
/// weight.
pub fn weighted(values: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = values.iter().map(|(w, v)| (*w, v.ln())).collect();
    weighted_mean(&logs).map(f64::exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    #[test]
    fn geometric_means_as_the_original() {
        assert!(close(geometric_mean(&[1.0, 4.0]), 2.0));
        assert!(close(geometric_mean(&[0.5, 1.0, 2.0]), 1.0));
        assert!(close(geometric_mean(&[2.0, f64::NAN, 4.0, 8.0]), 4.0));
        assert_eq!(geometric_mean(&[0.0, 3.0]), 0.0);
        assert_eq!(geometric_mean(&[]), 1.0);
        assert_eq!(geometric_mean(&[f64::NAN]), 1.0);
        assert_eq!((of([]), of([f64::NAN])), (None, None), "without a value there is no mean");
    }

    #[test]
    fn weights_count_as_repeats() {
        // Weights 2 and 1 on 4 and 1/2: the plain mean of 4, 4 and 1/2 is 2.
        assert!(close(weighted(&[(2.0, 4.0), (1.0, 0.5)]).unwrap(), 2.0));
        assert!(close(
            weighted(&[(0.4, 2.0), (0.3, 0.5)]).unwrap(),
            (0.4 / 0.7 * 2f64.ln() + 0.3 / 0.7 * 0.5f64.ln()).exp()
        ));
        assert_eq!(weighted(&[]), None);
    }
}
