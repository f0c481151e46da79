//! The one rule for a measured figure read from a report: a throughput or
//! an energy per item is a measure only when it is finite, above
//! [`FLOOR`] and below its ceiling; any other value (NaN, an infinity, 0,
//! a negative, `5e-324`, `1e308`) is a damaged report or a broken counter,
//! and counts as a missing figure: in `n`, never in a mean. `mlb report`,
//! `mlb accept`, the store's import and `mlb db compare` apply it alike;
//! `mlb report` once gave an infinite mean where `db compare` showed none,
//! and `5e-324` entered the means (a score of infinity).

/// The least throughput (items/s) or energy (J per item) taken as a measure.
pub const FLOOR: f64 = 1e-9;
/// The largest throughput taken as a measure: items/s beyond any machine.
pub const MAX_ITEMS_PER_SECOND: f64 = 1e15;
/// The largest energy per item taken as a measure: a kilowatt for eleven
/// days per item.
pub const MAX_JOULES_PER_ITEM: f64 = 1e9;

/// `v` when it can be a throughput in items/s, else nothing.
pub fn items_per_second(v: f64) -> Option<f64> {
    (v.is_finite() && v > FLOOR && v < MAX_ITEMS_PER_SECOND).then_some(v)
}

/// `v` when it can be an energy in joules per item, else nothing.
pub fn joules_per_item(v: f64) -> Option<f64> {
    (v.is_finite() && v > FLOOR && v <= MAX_JOULES_PER_ITEM).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finite_figures_between_the_floor_and_the_ceiling_are_measures() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -1.0, 5e-324, 1e-10, 1e15, 1e308] {
            assert_eq!(items_per_second(v), None, "{v}");
        }
        for v in [1e-8, 0.5, 7400.0, 9.9e14] {
            assert_eq!(items_per_second(v), Some(v));
        }
        assert_eq!(joules_per_item(1e9), Some(1e9));
        assert_eq!(joules_per_item(1.1e9), None);
        assert_eq!(joules_per_item(5e-324), None);
    }
}
