//! `GET /api/history?system=&bench=&config=&metric=&last=K&scale=`: one
//! system's figures over time as `mlb db history` reads them, a series per
//! bench, the points that regressed marked; `scale` is how the page's chart
//! draws them (the figures are as they are).

use super::params::Params;
use super::{DataError, Page, Reader};
use crate::store::query::filters::{Filters, RunFilters};
use crate::store::query::history::{fetch, History, HistoryOptions};
use crate::store::query::matrix::Metric;
use crate::store::query::render::{history::render, Format};
use crate::store::query::scale::Scale;
use serde::Serialize;

/// The most points of a series a page shows.
pub const MAX_LAST: i64 = 10_000;

/// The points the history page draws when it is not asked for a number of
/// runs (`last`), shared among its series: the newest runs of each, at
/// least one. A system's whole history (20 benches of 200 runs) was a page
/// of 570 KB; with this, every history page is at most about 150 KB.
pub const PAGE_POINTS: usize = 1000;

/// The history page's query.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryQuery {
    /// The system (required).
    pub system: String,
    /// Only this bench (or config).
    pub bench: Option<String>,
    /// Only runs holding this bench or config.
    pub config: Option<String>,
    /// What the points show.
    pub metric: Metric,
    /// Only the last K points of each series.
    pub last: Option<usize>,
    /// How the page's chart draws the values.
    pub scale: Scale,
}

impl HistoryQuery {
    /// The page's parameters.
    pub const PARAMS: [&'static str; 6] = ["system", "bench", "config", "metric", "last", "scale"];

    /// Reads the query string.
    pub fn parse(query: &str) -> Result<HistoryQuery, DataError> {
        let p = Params::parse(query, &Self::PARAMS)?;
        let system = p.name("system")?.ok_or_else(|| DataError::bad("system", "", "pass system=NAME"))?;
        Ok(HistoryQuery {
            system,
            bench: p.name("bench")?,
            config: p.name("config")?,
            metric: p.metric("metric")?.unwrap_or(Metric::ItemsPerSecond),
            last: p.number("last", 1..=MAX_LAST)?.map(|k| k as usize),
            scale: p
                .parsed("scale", |v| Scale::named(v).ok_or_else(|| "pass relative or absolute".to_string()))?
                .unwrap_or_default(),
        })
    }
}

/// The history page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryPage {
    /// The series and the points that regressed, as `mlb db history
    /// --format json` gives them.
    #[serde(flatten)]
    pub history: History,
    /// How the page's chart draws the values (not the API's: its figures are as they are).
    #[serde(skip)]
    pub scale: Scale,
    /// The runs of each series the page kept by itself ([`PAGE_POINTS`]),
    /// when it left older ones out.
    #[serde(skip)]
    pub summarised: Option<usize>,
}

/// The history `query` asks for; with `points` (the page's), no more than
/// about that many points in all when the query asks for no number of runs.
pub fn history(reader: &Reader, query: &HistoryQuery, points: Option<usize>) -> Result<HistoryPage, DataError> {
    let args = HistoryOptions {
        filters: Filters {
            system: Some(query.system.clone()),
            runs: RunFilters { config: query.config.clone(), visible: reader.visible(), ..RunFilters::default() },
        },
        bench: query.bench.clone(),
        metric: query.metric,
        strict: false,
    };
    let mut history = fetch(reader.store(), &args)?;
    let lengths: Vec<usize> = history.series.iter().map(|s| s.points.len()).collect();
    let summarised = points.filter(|_| query.last.is_none()).and_then(|points| summary(points, &lengths));
    if let Some(k) = query.last.or(summarised) {
        for series in &mut history.series {
            let cut = series.points.len().saturating_sub(k);
            series.points.drain(..cut);
        }
    }
    let kept = |label: &str, run: i64| {
        history.series.iter().any(|s| s.label == label && s.points.iter().any(|p| p.run == run))
    };
    let regressions = history.regressions.iter().filter(|r| kept(&r.label, r.run)).cloned().collect();
    history.regressions = regressions;
    Ok(HistoryPage { history, scale: query.scale, summarised })
}

/// The newest runs of each series a page of about `points` points draws
/// of series `lengths` long (at least one each); `None` when it draws them
/// whole.
fn summary(points: usize, lengths: &[usize]) -> Option<usize> {
    let each = (points / lengths.len().max(1)).max(1);
    lengths.iter().any(|n| *n > each).then_some(each)
}

impl Page for HistoryPage {
    /// `mlb db history --format csv`, whose last column says whether a point regressed.
    fn csv(&self) -> String {
        render(&self.history, Format::Csv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_shares_its_points_among_its_series_and_keeps_a_short_history_whole() {
        assert_eq!(summary(PAGE_POINTS, &[200; 20]), Some(50));
        assert_eq!(summary(PAGE_POINTS, &[782; 16]), Some(62));
        assert_eq!(summary(PAGE_POINTS, &[40, 60]), None, "100 points are drawn whole");
        assert_eq!(summary(PAGE_POINTS, &[3; 5000]), Some(1), "at least a run a series");
        assert_eq!(summary(PAGE_POINTS, &[]), None);
    }
}
