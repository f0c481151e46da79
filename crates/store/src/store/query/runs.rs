//! `mlb db runs`: the runs the filters select, oldest first, with their
//! system, identity, instance count and tags.

use super::filters::{restrict, Filters};
use super::sql::Sql;
use crate::store::{Store, StoreError};
use serde::Serialize;
use std::collections::BTreeMap;

/// One stored run (one output folder).
#[derive(Clone, Debug, PartialEq, Serialize, sqlx::FromRow)]
pub struct RunRow {
    /// Its id in the store.
    pub id: i64,
    /// Its system's name.
    pub system: String,
    /// When it started (RFC 3339, UTC), when known.
    pub started: Option<String>,
    /// The run ids of its reports (`0` or `0..9`).
    pub run_ids: String,
    /// The folder it was imported from.
    pub folder: String,
    /// The mlb version that ran it, if known.
    pub mlb_version: Option<String>,
    /// Its container image digest, if any.
    pub image_digest: Option<String>,
    /// Instances stored.
    pub instances: i64,
    /// Until when only its push key sees it (RFC 3339, UTC); none: public.
    pub embargo_until: Option<String>,
    /// Its tags (read apart, from the `tags` table).
    #[sqlx(skip)]
    pub tags: BTreeMap<String, String>,
}

/// One tag of a run.
#[derive(sqlx::FromRow)]
struct Tag {
    run_id: i64,
    key: String,
    value: String,
}

/// The runs `filters` select, oldest first (a run without a start time first).
pub fn runs(store: &Store, filters: &Filters) -> Result<Vec<RunRow>, StoreError> {
    let mut sql = Sql::new(
        "SELECT r.id, s.name AS system, r.started_at AS started, r.run_ids, r.folder, r.mlb_version, r.image_digest, \
         r.embargo_until, (SELECT COUNT(*) FROM instances i WHERE i.run_id = r.id) AS instances \
         FROM runs r JOIN systems s ON s.id = r.system_id WHERE 1 = 1",
    );
    restrict(&mut sql, filters);
    sql.push(" ORDER BY r.started_at, r.id");
    let what = "listing runs";
    let mut runs: Vec<RunRow> = sql.rows(store, what)?;
    let by_id: BTreeMap<i64, usize> = runs.iter().enumerate().map(|(k, r)| (r.id, k)).collect();
    let mut sql = Sql::new("SELECT t.run_id, t.key, t.value FROM tags t JOIN runs r ON r.id = t.run_id ");
    sql.push("JOIN systems s ON s.id = r.system_id WHERE 1 = 1");
    restrict(&mut sql, filters);
    for Tag { run_id, key, value } in sql.rows(store, what)? {
        if let Some(k) = by_id.get(&run_id) {
            runs[*k].tags.insert(key, value);
        }
    }
    Ok(runs)
}
