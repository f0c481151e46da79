//! `GET /api/systems`: every system of the store, its description (its
//! `system.json`) and its last run.

use super::params::Params;
use super::{DataError, Page, Reader};
use crate::store::query::filters::{restrict, Filters, RunFilters};
use crate::store::query::render::{csv_text, list};
use crate::store::query::sql::Sql;
use crate::store::query::systems::{systems as listed, SystemListing};
use serde::Serialize;
use std::collections::HashMap;

/// The systems page takes no parameter but the common ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemsQuery;

impl SystemsQuery {
    /// Reads the query string.
    pub fn parse(query: &str) -> Result<SystemsQuery, DataError> {
        Params::parse(query, &[]).map(|_| SystemsQuery)
    }
}

/// A run, by id and start.
#[derive(Clone, Debug, PartialEq, Serialize, sqlx::FromRow)]
pub struct RunRef {
    /// Its id in the store.
    pub id: i64,
    /// When it started (RFC 3339, UTC), when known.
    pub started: Option<String>,
}

/// One system (one `system.json` identity).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemEntry {
    /// The system, its runs, its first and last start.
    #[serde(flatten)]
    pub listing: SystemListing,
    /// Its `system.json`, as an object (none when the runs had none).
    pub described: Option<serde_json::Value>,
    /// Its last run (by start, then id).
    pub last_run: Option<RunRef>,
}

/// The systems page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Systems {
    /// Every system, by name.
    pub systems: Vec<SystemEntry>,
}

/// A run of the system of fingerprint `fingerprint`.
#[derive(sqlx::FromRow)]
struct SystemRun {
    fingerprint: String,
    #[sqlx(flatten)]
    run: RunRef,
}

/// Every system of `reader`'s store.
pub fn systems(reader: &Reader, _query: &SystemsQuery) -> Result<Systems, DataError> {
    let store = reader.store();
    let filters = Filters { system: None, runs: RunFilters { visible: reader.visible(), ..RunFilters::default() } };
    let found = listed(store, &filters)?;
    // The last run of each system row, by its fingerprint.
    let mut last = Sql::new(
        "SELECT s.fingerprint, r.id, r.started_at AS started FROM runs r JOIN systems s ON s.id = r.system_id \
         WHERE 1 = 1",
    );
    restrict(&mut last, &filters);
    last.push(" ORDER BY r.started_at, r.id");
    let rows: Vec<SystemRun> = last.rows(store, "listing the systems' last runs")?;
    let last_runs: HashMap<String, RunRef> = rows.into_iter().map(|r| (r.fingerprint, r.run)).collect();
    let systems = found
        .into_iter()
        .map(|listing| {
            let described = listing.system.description.as_deref().and_then(|d| serde_json::from_str(d).ok());
            let last_run = last_runs.get(&listing.system.fingerprint()).cloned();
            SystemEntry { listing, described, last_run }
        })
        .collect();
    Ok(Systems { systems })
}

impl Page for Systems {
    /// `mlb db systems --format csv`'s columns, then the last run's id and start.
    fn csv(&self) -> String {
        let listings: Vec<SystemListing> = self.systems.iter().map(|s| s.listing.clone()).collect();
        let text = list::systems(&listings, crate::store::query::render::Format::Csv);
        let last = self.systems.iter().map(|s| match &s.last_run {
            Some(r) => format!("{},{}", r.id, csv_text(r.started.as_deref().unwrap_or_default())),
            None => ",".to_string(),
        });
        super::with_columns(&text, "last_run,last_run_started", last)
    }
}
