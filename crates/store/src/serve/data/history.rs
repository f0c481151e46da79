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
}

/// The history `query` asks for.
pub fn history(reader: &Reader, query: &HistoryQuery) -> Result<HistoryPage, DataError> {
    let args = HistoryOptions {
        filters: Filters {
            system: Some(query.system.clone()),
            runs: RunFilters { config: query.config.clone(), ..RunFilters::default() },
        },
        bench: query.bench.clone(),
        metric: query.metric,
        strict: false,
    };
    let mut history = fetch(reader.store(), &args)?;
    if let Some(k) = query.last {
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
    Ok(HistoryPage { history, scale: query.scale })
}

impl Page for HistoryPage {
    /// `mlb db history --format csv`, whose last column says whether a point regressed.
    fn csv(&self) -> String {
        render(&self.history, Format::Csv)
    }
}
