//! `mlb db runs`: the runs the filters select, oldest first, with their
//! system, identity, instance count and tags.

use super::args::Filters;
use super::filters::restrict;
use super::sql::Sql;
use crate::store::{Store, StoreError};
use serde::Serialize;
use sqlx::Row;
use std::collections::BTreeMap;

/// One stored run (one output folder).
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Its tags.
    pub tags: BTreeMap<String, String>,
}

/// The runs `filters` select, oldest first (a run without a start time first).
pub fn runs(store: &Store, filters: &Filters) -> Result<Vec<RunRow>, StoreError> {
    let mut sql = Sql::new(
        "SELECT r.id, s.name, r.started_at, r.run_ids, r.folder, r.mlb_version, r.image_digest, \
         (SELECT COUNT(*) FROM instances i WHERE i.run_id = r.id) AS instances \
         FROM runs r JOIN systems s ON s.id = r.system_id WHERE 1 = 1",
    );
    restrict(&mut sql, filters);
    sql.push(" ORDER BY r.started_at, r.id");
    let what = "listing runs";
    let mut runs = sql.rows(store, what, |row| {
        Ok(RunRow {
            id: row.try_get(0)?,
            system: row.try_get(1)?,
            started: row.try_get(2)?,
            run_ids: row.try_get(3)?,
            folder: row.try_get(4)?,
            mlb_version: row.try_get(5)?,
            image_digest: row.try_get(6)?,
            instances: row.try_get(7)?,
            tags: BTreeMap::new(),
        })
    })?;
    let by_id: BTreeMap<i64, usize> = runs.iter().enumerate().map(|(k, r)| (r.id, k)).collect();
    let mut sql = Sql::new("SELECT t.run_id, t.key, t.value FROM tags t JOIN runs r ON r.id = t.run_id ");
    sql.push("JOIN systems s ON s.id = r.system_id WHERE 1 = 1");
    restrict(&mut sql, filters);
    let tags = sql.rows(store, what, |row| Ok((row.try_get::<i64, _>(0)?, row.try_get(1)?, row.try_get(2)?)))?;
    for (id, key, value) in tags {
        if let Some(k) = by_id.get(&id) {
            runs[*k].tags.insert(key, value);
        }
    }
    Ok(runs)
}
