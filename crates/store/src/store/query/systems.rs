//! `mlb db systems`: the systems of the runs the filters select, with how
//! many runs each has and when the first and the last started.

use super::filters::{restrict, Filters};
use super::sql::Sql;
use crate::store::import::system::SystemRow;
use crate::store::{Store, StoreError};
use serde::Serialize;

/// One stored system (one `system.json` identity) and its runs selected.
#[derive(Clone, Debug, PartialEq, Serialize, sqlx::FromRow)]
pub struct SystemListing {
    /// The system as stored.
    #[serde(flatten)]
    #[sqlx(flatten)]
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
    // The systems table alone has these names: they need no `s.`.
    let columns = SystemRow::COLUMNS;
    let mut sql = Sql::new(&format!(
        "SELECT {columns}, COUNT(r.id) AS runs, MIN(r.started_at) AS first, MAX(r.started_at) AS last \
         FROM systems s JOIN runs r ON r.system_id = s.id WHERE 1 = 1"
    ));
    restrict(&mut sql, filters);
    sql.push(&format!(" GROUP BY s.id, {columns}"));
    sql.push(" ORDER BY s.name, s.id");
    sql.rows(store, "listing systems")
}
