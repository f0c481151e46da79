//! The confidence interval of the ratio of two independent means, by
//! Fieller's theorem: `mlb interfere`'s slowdown `1 - paired/alone` is one
//! less such a ratio (docs/interfere.md, "The confidence interval").
//!
//! For means `a` (numerator) and `b` (denominator) of independent samples,
//! with squared standard errors `va = sa²/na` and `vb = sb²/nb`, the values
//! `r` for which `a - r·b` is not significantly different from 0 at the
//! level asked form the interval
//!
//! ```text
//! g = t² vb / b²
//! r = a / b
//! (r ± (t / |b|) · sqrt(va·(1 - g) + r²·vb)) / (1 - g)
//! ```
//!
//! where `t` is Student's quantile with the Welch–Satterthwaite degrees of
//! freedom of `a - r·b`: `(va + r²vb)² / (va²/(na-1) + r⁴vb²/(nb-1))`.
//! When `g >= 1` the denominator's mean is not told apart from 0 and the
//! interval is unbounded: there is none. Unlike the delta method's
//! symmetric `r ± t·se(r)`, Fieller's interval is skewed as the ratio's
//! distribution is, and stays right when `b` is noisy; the two agree as
//! `g` goes to 0.

use crate::moments::Moments;
use crate::student;

/// The interval of `a.mean / b.mean` at `level` (0.95 for 95%), the samples
/// independent; `None` with fewer than two values on a side, a
/// denominator of mean 0, or one whose noise reaches 0 (`g >= 1`). Two
/// samples without spread give the ratio itself at both ends.
pub fn fieller(a: &Moments, b: &Moments, level: f64) -> Option<(f64, f64)> {
    let (ma, sa2) = (a.mean?, a.variance?);
    let (mb, sb2) = (b.mean?, b.variance?);
    if mb == 0.0 || !(0.0..1.0).contains(&level) {
        return None;
    }
    let r = ma / mb;
    let (va, vb) = (sa2 / a.n as f64, sb2 / b.n as f64);
    let spread = va + r * r * vb;
    if spread == 0.0 {
        return Some((r, r));
    }
    let df = spread * spread / (va * va / (a.n - 1) as f64 + (r * r * vb).powi(2) / (b.n - 1) as f64);
    let t = student::quantile(0.5 + level / 2.0, df);
    let g = t * t * vb / (mb * mb);
    if g.is_nan() || g >= 1.0 {
        return None;
    }
    let half = t / mb.abs() * (va * (1.0 - g) + r * r * vb).sqrt();
    let (low, high) = ((r - half) / (1.0 - g), (r + half) / (1.0 - g));
    (low.is_finite() && high.is_finite()).then_some((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn a_worked_interval_by_hand() {
        // a = 8, 9, 10: mean 9, variance 1, va = 1/3.
        // b = 10, 12, 14: mean 12, variance 4, vb = 4/3. r = 0.75.
        // va + r²vb = 1/3 + 0.75 = 1.083333; df = 1.083333² /
        // ((1/3)²/2 + 0.75²/2) = 1.173611 / 0.336806 = 3.484536.
        // t(0.975, 3.484536) = 2.946173 (the t density integrated numerically).
        // g = t² · (4/3) / 144 = 0.080370.
        // half = t/12 · sqrt(1/3 · 0.919630 + 0.75) = 0.252360.
        // (0.75 ∓ 0.252360) / 0.919630 = 0.541130 .. 1.089960.
        let a = Moments::of(&[8.0, 9.0, 10.0]);
        let b = Moments::of(&[10.0, 12.0, 14.0]);
        let t = student::quantile(0.975, 3.484536);
        assert!(close(t, 2.946173, 1e-4), "{t}");
        let (low, high) = fieller(&a, &b, 0.95).unwrap();
        assert!(close(low, 0.541130, 1e-5) && close(high, 1.089960, 1e-5), "{low} {high}");
        assert!(high - 0.75 > 0.75 - low, "skewed upwards, as the ratio is");
    }

    #[test]
    fn quiet_samples_give_a_narrow_interval_around_the_ratio() {
        let a = Moments::of(&[90.0, 90.1, 89.9, 90.0]);
        let b = Moments::of(&[100.0, 100.1, 99.9, 100.0]);
        let (low, high) = fieller(&a, &b, 0.95).unwrap();
        assert!(low < 0.9 && 0.9 < high && high - low < 0.005, "{low} {high}");
        let flat = Moments::of(&[3.0, 3.0]);
        assert_eq!(fieller(&flat, &Moments::of(&[4.0, 4.0, 4.0]), 0.95), Some((0.75, 0.75)));
    }

    #[test]
    fn no_interval_without_spread_or_with_a_denominator_near_zero() {
        let one = Moments::of(&[5.0]);
        let two = Moments::of(&[5.0, 6.0]);
        assert_eq!((fieller(&one, &two, 0.95), fieller(&two, &one, 0.95)), (None, None));
        assert_eq!(fieller(&two, &Moments::of(&[0.0, 0.0]), 0.95), None);
        // A denominator whose interval reaches 0: unbounded, none.
        assert_eq!(fieller(&two, &Moments::of(&[-1.0, 1.5]), 0.95), None);
        assert_eq!(fieller(&two, &two, 1.0), None, "a level of 100% has no interval");
    }
}
