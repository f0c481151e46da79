//! Telemetry timelines cut down for the HTML page: a timeline of 200,000
//! slices once gave a page of hundreds of MB (every point drawn, and a
//! shaded span per throttled slice). Each sampled instance's timeline is
//! cut, as it is read, into at most [`BUCKETS`] buckets of consecutive
//! slices, each kept as two slices holding every series' min and max in
//! the bucket, in the order they came: a one-slice spike, or a throttled
//! slice, stays drawn.

use mlb_record::contract::telemetry::Timeline;

/// The most buckets a timeline keeps: at most twice as many points a series.
pub const BUCKETS: usize = 1_000;

/// `timeline` with at most `2 * buckets` slices, min and max of every
/// series kept; unchanged when it has no more.
pub fn downsample(timeline: Timeline, buckets: usize) -> Timeline {
    let n = timeline.t.len();
    if n <= 2 * buckets {
        return timeline;
    }
    // Bucket k holds slices [k * n / buckets, (k + 1) * n / buckets).
    let bounds: Vec<(usize, usize)> = (0..buckets).map(|k| (k * n / buckets, (k + 1) * n / buckets)).collect();
    let t = bounds.iter().flat_map(|&(a, b)| [timeline.t[a], timeline.t[b - 1]]).collect();
    let series = timeline
        .series
        .into_iter()
        .map(|(name, values)| {
            let kept = bounds.iter().flat_map(|&(a, b)| extremes(values.get(a..b.min(values.len())).unwrap_or(&[])));
            (name, kept.collect())
        })
        .collect();
    Timeline { t, series }
}

/// The min and the max of `values` (`null`s skipped), in the order they
/// come; `[null, null]` when there is no value.
fn extremes(values: &[Option<f64>]) -> [Option<f64>; 2] {
    let mut min: Option<(usize, f64)> = None;
    let mut max: Option<(usize, f64)> = None;
    for (i, v) in values.iter().enumerate() {
        let Some(v) = *v else { continue };
        if min.is_none_or(|(_, m)| v < m) {
            min = Some((i, v));
        }
        if max.is_none_or(|(_, m)| v > m) {
            max = Some((i, v));
        }
    }
    match (min, max) {
        (Some(lo), Some(hi)) if hi.0 < lo.0 => [Some(hi.1), Some(lo.1)],
        (Some(lo), Some(hi)) => [Some(lo.1), Some(hi.1)],
        _ => [None, None],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn timeline(n: usize, power: impl Fn(usize) -> Option<f64>) -> Timeline {
        let t = (0..n).map(|i| i as f64).collect();
        Timeline { t, series: BTreeMap::from([("gpu0.power_w".to_string(), (0..n).map(power).collect())]) }
    }

    #[test]
    fn min_and_max_of_each_bucket_in_order() {
        // 12 slices, 3 buckets of 4: [1 9 2 3] [5 5 0 5] [null null null null].
        let values = [1.0, 9.0, 2.0, 3.0, 5.0, 5.0, 0.0, 5.0];
        let d = downsample(timeline(12, |i| values.get(i).copied()), 3);
        assert_eq!(d.t, [0.0, 3.0, 4.0, 7.0, 8.0, 11.0]);
        assert_eq!(d.series["gpu0.power_w"], [Some(1.0), Some(9.0), Some(5.0), Some(0.0), None, None]);
    }

    #[test]
    fn a_spike_survives_and_a_short_timeline_is_kept_whole() {
        let n = 200_000;
        let d = downsample(timeline(n, |i| Some(if i == 123_457 { 987.0 } else { 300.0 })), BUCKETS);
        assert_eq!(d.t.len(), 2 * BUCKETS);
        let top = d.series["gpu0.power_w"].iter().flatten().fold(0.0, |a: f64, b| a.max(*b));
        assert_eq!(top, 987.0);
        let short = timeline(10, |i| Some(i as f64));
        assert_eq!(downsample(short.clone(), BUCKETS), short);
    }
}
