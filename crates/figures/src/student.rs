//! Student's t distribution (standard: location 0, scale 1), the one place
//! mlb asks statrs for it: the confidence interval of a mean
//! ([`crate::sample`]), Welch's test ([`crate::welch`]) and the RCP check's
//! one-sided test ([`crate::rcp`]).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The distribution with `df` degrees of freedom; `None` unless `df` is a
/// positive number.
fn with(df: f64) -> Option<StudentsT> {
    StudentsT::new(0.0, 1.0, df).ok()
}

/// The `p` quantile with `df` degrees of freedom (NaN unless `df` is positive).
pub fn quantile(p: f64, df: f64) -> f64 {
    with(df).map_or(f64::NAN, |t| t.inverse_cdf(p))
}

/// The probability of a value at least `|t|` away from 0 on either side
/// (the two-sided p-value of `t`), by the survival function, as scipy's
/// `t.sf`; `None` unless `df` is positive and `t` a number.
pub fn two_sided_p(t: f64, df: f64) -> Option<f64> {
    let dist = with(df)?;
    (!t.is_nan()).then(|| (2.0 * dist.sf(t.abs())).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_the_tables() {
        // Two-sided 95% critical values from a printed t table.
        for (df, want) in
            [(1.0, 12.706), (2.0, 4.303), (4.0, 2.776), (7.0, 2.365), (9.0, 2.262), (29.0, 2.045), (120.0, 1.980)]
        {
            assert!((quantile(0.975, df) - want).abs() <= 5e-4, "df {df}: {}", quantile(0.975, df));
        }
        assert!(quantile(0.975, 0.0).is_nan());
    }

    #[test]
    fn the_two_sided_tail_is_twice_one_tail() {
        // t = 2.262 with 9 degrees of freedom is the 97.5% quantile: p = 0.05.
        assert!((two_sided_p(2.262157, 9.0).unwrap() - 0.05).abs() < 1e-6);
        assert_eq!(two_sided_p(-2.262157, 9.0), two_sided_p(2.262157, 9.0));
        assert_eq!(two_sided_p(0.0, 9.0), Some(1.0));
        assert_eq!((two_sided_p(f64::NAN, 9.0), two_sided_p(1.0, 0.0)), (None, None));
    }
}
