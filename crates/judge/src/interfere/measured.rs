//! What the matrix takes of one run's report: its rate, when it ran, and
//! the observations it was asked for; and how much of a victim's run its
//! neighbours ran alongside.

use chrono::NaiveDateTime;
use mlb_record::contract::Report;
use std::path::Path;

/// One instance's report, as the matrix reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measured {
    /// `train_item.avg`, items/s; none when not a finite number.
    pub rate: Option<f64>,
    /// When its workload started and when its report was made, seconds
    /// since the epoch (UTC).
    pub span: Option<(f64, f64)>,
    /// The observations it was asked for (`repeat`).
    pub repeat: Option<u64>,
}

impl Measured {
    /// What the report at `path` says; nothing when it cannot be read.
    pub fn read(path: &Path) -> Measured {
        let Ok(report) = Report::load(path) else { return Measured::default() };
        let time = |t: &Option<String>| {
            let t = t.as_deref()?;
            let at = NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%.f").ok()?.and_utc();
            Some(at.timestamp_micros() as f64 / 1e6)
        };
        Measured {
            rate: report.train_item.map(|t| t.avg).filter(|r| r.is_finite()),
            span: time(&report.start_time).zip(time(&report.end_time)).filter(|(s, e)| e > s),
            repeat: report.args.get("repeat").and_then(serde_json::Value::as_u64),
        }
    }

    /// How long its workload ran, in seconds.
    pub fn seconds(&self) -> Option<f64> {
        self.span.map(|(start, end)| end - start)
    }
}

/// The share of `victim`'s span during which every one of `neighbours`
/// ran too (1: all of it; 0: none); none without a span on a side.
pub fn overlap(victim: Option<(f64, f64)>, neighbours: &[Option<(f64, f64)>]) -> Option<f64> {
    let (start, end) = victim?;
    let mut from = start;
    let mut to = end;
    for n in neighbours {
        let (s, e) = (*n)?;
        from = from.max(s);
        to = to.min(e);
    }
    Some(((to - from) / (end - start)).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_gives_its_rate_times_and_repeat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.a.R0.D0.json");
        let text = r#"{"suite": "s", "name": "a", "run_id": 0, "jr_id": "0", "vcd": "0", "completed": true,
            "repeat": 30, "start_time": "2026-01-01 10:00:00.000000", "end_time": "2026-01-01 10:00:02.500000",
            "train_item": {"avg": 120.5, "max": 130.0, "min": 110.0, "range": 20.0, "unit": "items/sec"}}"#;
        std::fs::write(&path, text).unwrap();
        let m = Measured::read(&path);
        assert_eq!((m.rate, m.repeat, m.seconds()), (Some(120.5), Some(30), Some(2.5)));
        assert_eq!(Measured::read(&dir.path().join("none.json")), Measured::default());
    }

    #[test]
    fn the_overlap_is_the_share_of_the_victims_span_every_neighbour_covers() {
        let victim = Some((10.0, 20.0));
        assert_eq!(overlap(victim, &[Some((5.0, 30.0))]), Some(1.0));
        assert_eq!(overlap(victim, &[Some((5.0, 15.0))]), Some(0.5));
        assert_eq!(overlap(victim, &[Some((5.0, 30.0)), Some((12.0, 18.0))]), Some(0.6));
        assert_eq!(overlap(victim, &[Some((25.0, 30.0))]), Some(0.0));
        assert_eq!((overlap(victim, &[None]), overlap(None, &[])), (None, None));
    }
}
