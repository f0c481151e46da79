//! `mlb db systems`: the systems of the runs the filters select, with how
//! many runs each has and when the first and the last started.

use super::args::Filters;
use super::filters::restrict;
use super::sql::Sql;
use crate::store::{Store, StoreError};
use serde::Serialize;
use sqlx::Row;

/// One stored system (one `system.json` identity).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemRow {
    /// Its name (`--system` at import, else its host).
    pub name: String,
    /// Its host name.
    pub host: String,
    /// Its CPU model.
    pub cpu: String,
    /// Its accelerator model.
    pub gpu_model: String,
    /// Accelerators.
    pub gpu_count: i64,
    /// Its driver version.
    pub driver: String,
    /// Runs selected.
    pub runs: i64,
    /// Start of its first run selected.
    pub first: Option<String>,
    /// Start of its last run selected.
    pub last: Option<String>,
}

/// The systems with a run the filters select, by name.
pub fn systems(store: &Store, filters: &Filters) -> Result<Vec<SystemRow>, StoreError> {
    let mut sql = Sql::new(
        "SELECT s.name, s.host, s.cpu, s.gpu_model, s.gpu_count, s.driver, COUNT(r.id), MIN(r.started_at), \
         MAX(r.started_at) FROM systems s JOIN runs r ON r.system_id = s.id WHERE 1 = 1",
    );
    restrict(&mut sql, filters);
    sql.push(" GROUP BY s.id, s.name, s.host, s.cpu, s.gpu_model, s.gpu_count, s.driver ORDER BY s.name, s.id");
    sql.rows(store, "listing systems", |row| {
        Ok(SystemRow {
            name: row.try_get(0)?,
            host: row.try_get(1)?,
            cpu: row.try_get(2)?,
            gpu_model: row.try_get(3)?,
            gpu_count: row.try_get(4)?,
            driver: row.try_get(5)?,
            runs: row.try_get(6)?,
            first: row.try_get(7)?,
            last: row.try_get(8)?,
        })
    })
}
