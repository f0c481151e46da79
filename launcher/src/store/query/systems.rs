//! `mlb db systems`: the systems of the runs the filters select, with how
//! many runs each has and when the first and the last started.

use super::args::Filters;
use super::filters::restrict;
use super::sql::Sql;
use crate::store::import::system::SystemRow;
use crate::store::{Store, StoreError};
use serde::Serialize;
use sqlx::Row;

/// One stored system (one `system.json` identity) and its runs selected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemListing {
    /// The system as stored.
    #[serde(flatten)]
    pub system: SystemRow,
    /// Runs selected.
    pub runs: i64,
    /// Start of its first run selected.
    pub first: Option<String>,
    /// Start of its last run selected.
    pub last: Option<String>,
}

/// The systems with a run the filters select, by name.
pub fn systems(store: &Store, filters: &Filters) -> Result<Vec<SystemListing>, StoreError> {
    let mut sql = Sql::new(
        "SELECT s.name, s.host, s.cpu, s.gpu_model, s.gpu_count, s.driver, s.runtime_versions, s.description, \
         COUNT(r.id), MIN(r.started_at), MAX(r.started_at) FROM systems s JOIN runs r ON r.system_id = s.id WHERE 1 = 1",
    );
    restrict(&mut sql, filters);
    sql.push(
        " GROUP BY s.id, s.name, s.host, s.cpu, s.gpu_model, s.gpu_count, s.driver, s.runtime_versions, s.description",
    );
    sql.push(" ORDER BY s.name, s.id");
    sql.rows(store, "listing systems", |row| {
        let system = SystemRow {
            name: row.try_get(0)?,
            host: row.try_get(1)?,
            cpu: row.try_get(2)?,
            gpu_model: row.try_get(3)?,
            gpu_count: row.try_get(4)?,
            driver: row.try_get(5)?,
            runtime_versions: row.try_get(6)?,
            description: row.try_get(7)?,
        };
        Ok(SystemListing { system, runs: row.try_get(8)?, first: row.try_get(9)?, last: row.try_get(10)? })
    })
}
