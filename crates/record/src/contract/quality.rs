//! What a report holds of its run to quality: the report's `quality` block
//! (docs/quality.md, "The report"), with whether the page cache was dropped
//! before the run ([`PageCache`], which the launcher tells the worker in the
//! instance environment: [`PAGE_CACHE`](super::env::PAGE_CACHE)) and when
//! the instance's clock ran ([`Span`]).

use mlb_plugin::QualitySpec;
use serde::{Deserialize, Serialize};

/// Whether the page cache was dropped before the run, and why not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCache {
    /// It was dropped.
    pub dropped: bool,
    /// Why it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

impl PageCache {
    /// Dropped.
    pub fn dropped() -> Self {
        PageCache { dropped: true, why_not: None }
    }

    /// Kept, for `why`.
    pub fn kept(why: impl Into<String>) -> Self {
        PageCache { dropped: false, why_not: Some(why.into()) }
    }

    /// As the environment variable carries it: `dropped`, or `kept: WHY`.
    pub fn to_env(&self) -> String {
        match &self.why_not {
            None if self.dropped => "dropped".into(),
            why => format!("kept: {}", why.as_deref().unwrap_or("unknown")),
        }
    }

    /// Reads what [`to_env`](Self::to_env) writes; a worker started without
    /// it (by hand) was not told of any drop.
    pub fn from_env(text: Option<&str>) -> Self {
        match text.map(str::trim) {
            Some("dropped") => PageCache::dropped(),
            Some(other) => PageCache::kept(other.strip_prefix("kept:").unwrap_or(other).trim()),
            None => PageCache::kept("the worker was not started by the launcher"),
        }
    }
}

/// When one instance's clock ran: Unix seconds at its start and its stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// The clock started (before the first step).
    pub started_at: f64,
    /// The clock stopped (target reached, or the bound).
    pub stopped_at: f64,
}

/// One evaluation on the clock: a point of the quality curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Items trained on before it.
    pub items: u64,
    /// Seconds on the clock when it ended.
    pub seconds: f64,
    /// The quality it measured (a NaN is written `null` and read back as NaN).
    #[serde(deserialize_with = "nan_if_null")]
    pub value: f64,
}

/// A number, or NaN for `null` (how a NaN is written).
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// The bound past which a run is not converged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    /// Items (`None`: no items bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    /// Seconds on the clock.
    pub seconds: f64,
}

/// An instance's run to quality.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QualityRecord {
    /// The metric, its unit and direction, and the run's target (the job's,
    /// else the workload's default).
    #[serde(flatten)]
    pub goal: QualitySpec,
    /// The instance's seed.
    pub seed: Option<u64>,
    /// Whether the page cache was dropped before the run.
    pub page_cache: PageCache,
    /// Seconds of the initialisation (create and setup), before the clock.
    pub init_seconds: f64,
    /// Unix seconds when the clock started (before the first step).
    pub started_at: f64,
    /// Unix seconds when it stopped.
    pub stopped_at: f64,
    /// Seconds on the clock.
    pub seconds: f64,
    /// Whether an evaluation reached the target within the bound.
    pub converged: bool,
    /// The time to quality, seconds: [`seconds`](Self::seconds) of a
    /// converged run, `None` otherwise.
    pub time_to_quality: Option<f64>,
    /// Items trained on, in all.
    pub items: u64,
    /// Items between two evaluations.
    pub eval_every: u64,
    /// The bound.
    pub bound: Bound,
    /// Every evaluation, in order.
    pub curve: Vec<Point>,
    /// The file of the run's `:::MLLOG` lines, beside the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mllog: Option<String>,
}

impl QualityRecord {
    /// When its clock ran.
    pub fn span(&self) -> Span {
        Span { started_at: self.started_at, stopped_at: self.stopped_at }
    }
}

/// A quality block to build tests on (feature `fixtures`, for the crates
/// above whose tests read one).
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures {
    use super::*;

    /// A converged run of two evaluations.
    pub fn record() -> QualityRecord {
        let goal = QualitySpec { metric: "top1".into(), unit: "fraction".into(), higher_is_better: true, target: 0.5 };
        QualityRecord {
            goal,
            seed: Some(100),
            page_cache: PageCache::kept("not root"),
            init_seconds: 0.25,
            started_at: 1000.0,
            stopped_at: 1002.0,
            seconds: 2.0,
            converged: true,
            time_to_quality: Some(2.0),
            items: 128,
            eval_every: 64,
            bound: Bound { items: None, seconds: 60.0 },
            curve: vec![Point { items: 64, seconds: 1.0, value: 0.3 }, Point { items: 128, seconds: 2.0, value: 0.6 }],
            mllog: Some("s.n.R0.D0.mllog".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::record;
    use super::*;

    #[test]
    fn the_block_reads_back_as_written_with_the_goal_flat() {
        let r = record();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!((v["metric"].as_str(), v["target"].as_f64()), (Some("top1"), Some(0.5)));
        assert_eq!(v["curve"][1], serde_json::json!({"items": 128, "seconds": 2.0, "value": 0.6}));
        assert_eq!(serde_json::from_value::<QualityRecord>(v).unwrap(), r);
        assert_eq!(r.span(), Span { started_at: 1000.0, stopped_at: 1002.0 });
        let nan: Point =
            serde_json::from_value(serde_json::to_value(Point { value: f64::NAN, ..r.curve[0] }).unwrap()).unwrap();
        assert!(nan.value.is_nan(), "a diverged evaluation reads back");
    }

    #[test]
    fn the_environment_carries_it_both_ways() {
        for cache in [PageCache::dropped(), PageCache::kept("not root")] {
            assert_eq!(PageCache::from_env(Some(&cache.to_env())), cache);
        }
        assert_eq!(PageCache::kept("x").to_env(), "kept: x");
        assert!(!PageCache::from_env(None).dropped);
    }
}
