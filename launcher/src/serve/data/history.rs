//! `GET /api/history?system=&bench=&config=&metric=&last=K&scale=`: one
//! system's figures over time as `mlb db history` reads them, a series per
//! bench, the points that regressed marked; `scale` is how the page's chart
//! draws them (the figures are as they are).

use super::params::Params;
use super::{DataError, Page, Reader};
use crate::report::history::{verdict, HISTORY_RUNS};
use crate::report::welch::Moments;
use crate::store::command::DbArg;
use crate::store::query::args::{Filters, HistoryArgs, RunFilters};
use crate::store::query::history::{fetch, History};
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

/// A point that regressed against the [`HISTORY_RUNS`] points before it
/// in its series, their instances pooled, under the regression rule of
/// `mlb report --db` ([`crate::report::history::verdict`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Regression {
    /// The series (bench or config).
    pub label: String,
    /// The run of the point.
    pub run: i64,
    /// Change from the mean of the points before, in percent (negative: lower).
    pub change_percent: f64,
    /// Welch's two-sided p-value of the point's instances against theirs.
    pub p_value: f64,
}

/// The history page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryPage {
    /// The series, as `mlb db history --format json` gives them.
    #[serde(flatten)]
    pub history: History,
    /// The points that regressed.
    pub regressions: Vec<Regression>,
    /// How the page's chart draws the values (not the API's: its figures are as they are).
    #[serde(skip)]
    pub scale: Scale,
}

/// The history `query` asks for.
pub fn history(reader: &Reader, query: &HistoryQuery) -> Result<HistoryPage, DataError> {
    let args = HistoryArgs {
        store: DbArg { db: None },
        filters: Filters {
            system: Some(query.system.clone()),
            runs: RunFilters { config: query.config.clone(), ..RunFilters::default() },
        },
        bench: query.bench.clone(),
        metric: query.metric,
        strict: false,
        svg: None,
        scale: query.scale,
        format: Format::Json,
    };
    let mut history = fetch(reader.store(), &args)?;
    if let Some(k) = query.last {
        for series in &mut history.series {
            let cut = series.points.len().saturating_sub(k);
            series.points.drain(..cut);
        }
    }
    let regressions = regressions(&history);
    Ok(HistoryPage { history, regressions, scale: query.scale })
}

/// The points of `history` that regressed. Lower is better for joules
/// per item, higher for the others.
pub fn regressions(history: &History) -> Vec<Regression> {
    let lower_is_better = history.metric == Metric::EnergyPerItem;
    let mut found = Vec::new();
    for series in &history.series {
        for (k, point) in series.points.iter().enumerate().skip(1) {
            let before = Moments::pooled(series.points[k.saturating_sub(HISTORY_RUNS)..k].iter().map(|p| p.moments));
            let v = verdict(&point.moments, &before, lower_is_better);
            if let (true, Some(change), Some(p_value)) = (v.regression, v.change, v.p_value) {
                found.push(Regression {
                    label: series.label.clone(),
                    run: point.run,
                    change_percent: change * 100.0,
                    p_value,
                });
            }
        }
    }
    found
}

impl Page for HistoryPage {
    /// `mlb db history --format csv`'s columns, then whether the point regressed.
    fn csv(&self) -> String {
        let marks = self.history.series.iter().flat_map(|s| {
            s.points.iter().map(|p| self.regressions.iter().any(|r| r.label == s.label && r.run == p.run).to_string())
        });
        super::with_columns(&render(&self.history, Format::Csv), "regression", marks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::history::{history, Point};

    use crate::report::history::judge;

    /// A run's point of the instance figures `values`.
    fn point(run: i64, values: &[f64]) -> (String, Point) {
        let moments = Moments::of(values);
        let (n, value) = (values.len(), moments.mean.unwrap());
        ("vae".into(), Point { run, run_ids: run.to_string(), started: String::new(), at: run, n, value, moments })
    }

    /// Four instances about `mean`, `spread` apart.
    fn around(mean: f64, spread: f64) -> [f64; 4] {
        [mean - 1.5 * spread, mean - 0.5 * spread, mean + 0.5 * spread, mean + 1.5 * spread]
    }

    #[test]
    fn a_drop_past_the_threshold_and_the_noise_is_marked_and_energy_counts_a_rise() {
        let runs = [around(100.0, 0.5), around(101.0, 0.5), around(99.0, 0.5), around(90.0, 0.5), around(100.0, 0.5)];
        let points: Vec<_> = runs.iter().zip(1..).map(|(values, run)| point(run, values)).collect();
        let speed = history("A", Metric::ItemsPerSecond, points.clone());
        let marked: Vec<i64> = regressions(&speed).iter().map(|r| r.run).collect();
        assert_eq!(marked, [4]);
        let energy = history("A", Metric::EnergyPerItem, points);
        let marked: Vec<i64> = regressions(&energy).iter().map(|r| r.run).collect();
        assert_eq!(marked, Vec::<i64>::new(), "a lower energy per item is better");
    }

    #[test]
    fn the_page_and_mlb_report_judge_a_point_alike() {
        // A 6% drop within the noise (the rule of the mean of the last five
        // alone flagged it), and a 20% drop beyond it.
        let runs = [around(100.0, 8.0), around(104.0, 8.0), around(96.0, 8.0), around(94.0, 8.0), around(80.0, 1.0)];
        let points: Vec<_> = runs.iter().zip(1..).map(|(values, run)| point(run, values)).collect();
        let page = regressions(&history("A", Metric::ItemsPerSecond, points));
        for (k, values) in runs.iter().enumerate().skip(1) {
            let before: Vec<f64> = runs[k.saturating_sub(HISTORY_RUNS)..k].concat();
            let report = judge("vae", values, &before, vec![]);
            let marked = page.iter().find(|r| r.run == k as i64 + 1);
            assert_eq!(marked.is_some(), report.regression, "run {}: {report:?} against {marked:?}", k + 1);
            if let Some(r) = marked {
                assert!((r.change_percent - report.change_percent.unwrap()).abs() < 1e-9);
                assert!((r.p_value - report.p_value.unwrap()).abs() < 1e-9);
            }
        }
        assert_eq!(page.iter().map(|r| r.run).collect::<Vec<_>>(), [5], "{page:?}");
    }
}
