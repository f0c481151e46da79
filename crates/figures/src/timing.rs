//! A worker's timed observations summarised: a report's `train`
//! (docs/worker.md, "Timing"): the mean, the population standard deviation
//! (as the original suite took it), the shortest and the longest, through
//! the one mean and variance.

use crate::moments::{mean, variance};
use mlb_record::contract::stats::Summary;

/// The summary of observation times, in seconds; `None` when there are none.
pub fn summary(times: &[f64]) -> Option<Summary> {
    if times.is_empty() {
        return None;
    }
    let avg = mean(times);
    Some(Summary {
        avg,
        count: times.len() as u64,
        max: times.iter().copied().fold(f64::MIN, f64::max),
        min: times.iter().copied().fold(f64::MAX, f64::min),
        sd: variance(times, avg, 0).sqrt(),
        unit: "s".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed() {
        let s = summary(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!((s.avg, s.count, s.min, s.max), (2.5, 4, 1.0, 4.0));
        assert!((s.sd - 1.25f64.sqrt()).abs() < 1e-12, "population sd");
        let t = s.throughput(10.0);
        assert_eq!((t.avg, t.min, t.max, t.range), (4.0, 2.5, 10.0, 7.5));
        assert!(summary(&[]).is_none());
    }
}
