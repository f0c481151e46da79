//! Welch's t-test: whether two samples' means differ, without assuming their
//! variances are equal (docs/results.md, "Regressions").

use crate::moments::Moments;
use crate::student;

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
    student::two_sided_p(t, df)
}

#[cfg(test)]
mod tests {
    use super::*;

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
