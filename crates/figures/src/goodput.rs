//! Goodput: the useful work a run kept for the slots and time it held
//! (docs/faults.md). Failures, restarts and the work computed again all
//! lower it; a run without faults sets the figure it is compared with.

/// Useful items per second and slot: `items / (wall_s * slots)`; `None`
/// when no time passed or no slot was held.
pub fn per_slot_second(items: f64, wall_s: f64, slots: usize) -> Option<f64> {
    (wall_s > 0.0 && slots > 0).then(|| items / (wall_s * slots as f64))
}

/// A run's goodput over its reference's: 1 when the faults cost nothing;
/// `None` when the reference kept none.
pub fn ratio(faulted: f64, reference: f64) -> Option<f64> {
    (reference > 0.0).then(|| faulted / reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_per_second_and_slot() {
        assert_eq!(per_slot_second(1200.0, 10.0, 2), Some(60.0));
        assert_eq!(per_slot_second(1200.0, 0.0, 2), None);
        assert_eq!(per_slot_second(1200.0, 10.0, 0), None);
        assert_eq!(ratio(45.0, 60.0), Some(0.75));
        assert_eq!(ratio(45.0, 0.0), None);
    }
}
