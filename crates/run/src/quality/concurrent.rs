//! The concurrent-instance metric (MLPerf HPC's "throughput" style): with M
//! instances training to quality at once on a node (one per slot), the time
//! from the first instance's clock start to the last one's clock stop.

use mlb_record::contract::quality::Span;

/// The time from the first start to the last stop of `spans`, seconds;
/// `None` for no span.
pub fn concurrent(spans: &[Span]) -> Option<f64> {
    let first = spans.iter().map(|s| s.started_at).reduce(f64::min)?;
    let last = spans.iter().map(|s| s.stopped_at).reduce(f64::max)?;
    Some(last - first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_the_first_start_to_the_last_stop() {
        let a = Span { started_at: 100.0, stopped_at: 130.0 };
        let b = Span { started_at: 101.5, stopped_at: 128.0 };
        assert_eq!(concurrent(&[a, b]), Some(30.0), "b stops first, a's stop is the last");
        let c = Span { started_at: 99.0, stopped_at: 140.0 };
        assert_eq!(concurrent(&[a, b, c]), Some(41.0));
        assert_eq!(concurrent(&[]), None);
    }
}
