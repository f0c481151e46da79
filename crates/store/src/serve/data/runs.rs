//! `GET /api/runs?system=&bench=&since=&until=&tag=K=V&outcome=&page=N`:
//! the runs the filters select, newest first, [`PER_PAGE`] a page.

use super::params::{checked_name, Params};
use super::{DataError, Page, Reader};
use crate::store::query::filters::{day_or_time, end_of_day_or_time, tag, Filters, RunFilters};
use crate::store::query::render::{list, Format};
use crate::store::query::runs::{runs as listed, RunRow};
use serde::Serialize;
use std::collections::HashMap;

/// Runs a page.
pub const PER_PAGE: usize = 50;

/// The most pages a listing is read to.
pub const MAX_PAGE: i64 = 100_000;

/// The most `tag` parameters taken.
pub const MAX_TAGS: usize = 8;

/// Which runs have a failed instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every instance completed.
    Completed,
    /// At least one instance failed.
    Failed,
}

/// The runs page's query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunsQuery {
    /// Only runs of this system.
    pub system: Option<String>,
    /// Only runs holding this bench (or config).
    pub bench: Option<String>,
    /// Only runs started on or after this time (RFC 3339, UTC).
    pub since: Option<String>,
    /// Only runs started before this time.
    pub until: Option<String>,
    /// Only runs with every one of these tags.
    pub tags: Vec<(String, String)>,
    /// Only runs of this outcome.
    pub outcome: Option<Outcome>,
    /// The page, from 1.
    pub page: usize,
}

impl RunsQuery {
    /// The page's parameters.
    pub const PARAMS: [&'static str; 7] = ["system", "bench", "since", "until", "tag", "outcome", "page"];

    /// Reads the query string.
    pub fn parse(query: &str) -> Result<RunsQuery, DataError> {
        let p = Params::parse(query, &Self::PARAMS)?;
        // An empty tag is none (a form's empty field).
        let tags: Vec<&str> = p.all("tag").into_iter().filter(|t| !t.is_empty()).collect();
        if tags.len() > MAX_TAGS {
            return Err(DataError::bad("tag", tags[MAX_TAGS], &format!("pass at most {MAX_TAGS} tags")));
        }
        let tags = tags
            .into_iter()
            .map(|t| {
                checked_name("tag", t)?;
                tag(t).map_err(|why| DataError::bad("tag", t, &format!("{why}; pass KEY=VALUE")))
            })
            .collect::<Result<_, _>>()?;
        let outcome = p.parsed("outcome", |v| match v {
            "completed" => Ok(Outcome::Completed),
            "failed" => Ok(Outcome::Failed),
            _ => Err("pass completed or failed".to_string()),
        })?;
        Ok(RunsQuery {
            system: p.name("system")?,
            bench: p.name("bench")?,
            since: p.parsed("since", day_or_time)?,
            until: p.parsed("until", end_of_day_or_time)?,
            tags,
            outcome,
            page: p.number("page", 1..=MAX_PAGE)?.unwrap_or(1) as usize,
        })
    }
}

/// One run of the list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunEntry {
    /// The run as `mlb db runs` lists it.
    #[serde(flatten)]
    pub run: RunRow,
    /// Its failed instances.
    pub failed: i64,
}

/// The runs page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Runs {
    /// Runs the filters select, in all.
    pub total: usize,
    /// This page, from 1.
    pub page: usize,
    /// Pages in all (at least 1).
    pub pages: usize,
    /// Runs a page.
    pub per_page: usize,
    /// This page's runs, newest first.
    pub runs: Vec<RunEntry>,
}

/// The runs `query` selects, a page of them.
pub fn runs(reader: &Reader, query: &RunsQuery) -> Result<Runs, DataError> {
    let store = reader.store();
    let filters = Filters {
        system: query.system.clone(),
        runs: RunFilters {
            tags: query.tags.clone(),
            since: query.since.clone(),
            until: query.until.clone(),
            config: query.bench.clone(),
            run: None,
            visible: reader.visible(),
        },
    };
    let mut all = listed(store, &filters)?;
    all.reverse();
    let failed = failed_counts(reader)?;
    let mut selected: Vec<RunEntry> = all
        .into_iter()
        .map(|run| RunEntry { failed: failed.get(&run.id).copied().unwrap_or(0), run })
        .filter(|r| match query.outcome {
            Some(Outcome::Failed) => r.failed > 0,
            Some(Outcome::Completed) => r.failed == 0,
            None => true,
        })
        .collect();
    let total = selected.len();
    let pages = total.div_ceil(PER_PAGE).max(1);
    let start = (query.page - 1).saturating_mul(PER_PAGE).min(total);
    let runs = selected.drain(start..(start + PER_PAGE).min(total)).collect();
    Ok(Runs { total, page: query.page, pages, per_page: PER_PAGE, runs })
}

/// A run's failed instances.
#[derive(sqlx::FromRow)]
struct Failed {
    run_id: i64,
    failed: i64,
}

/// The failed instances of each run with any, by run id.
fn failed_counts(reader: &Reader) -> Result<HashMap<i64, i64>, DataError> {
    let store = reader.store();
    let sql = "SELECT run_id, COUNT(*) AS failed FROM instances WHERE outcome = 'failed' GROUP BY run_id";
    let rows: Vec<Failed> = store
        .block_on(sqlx::query_as(sql).fetch_all(store.pool()))
        .map_err(|e| crate::store::StoreError::query(store.location(), "counting failed instances", &e))?;
    Ok(rows.into_iter().map(|r| (r.run_id, r.failed)).collect())
}

impl Page for Runs {
    /// `mlb db runs --format csv`'s columns, then the failed instances.
    fn csv(&self) -> String {
        let rows: Vec<RunRow> = self.runs.iter().map(|r| r.run.clone()).collect();
        super::with_columns(&list::runs(&rows, Format::Csv), "failed", self.runs.iter().map(|r| r.failed.to_string()))
    }
}
