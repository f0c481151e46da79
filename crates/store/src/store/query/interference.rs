//! `mlb db interference`: the cells of the interference matrices stored
//! (`mlb interfere --db`, or `mlb db import` of its folder) of the runs the
//! filters select.

use super::filters::{restrict, Filters};
use super::sql::Sql;
use crate::store::{Store, StoreError};
use serde::Serialize;

/// One stored cell, with its run.
#[derive(Clone, Debug, PartialEq, Serialize, sqlx::FromRow)]
pub struct StoredCell {
    /// The run's system.
    pub system: String,
    /// The run's folder.
    pub folder: String,
    /// The workload measured.
    pub victim: String,
    /// The workload beside it, or `mix`.
    pub aggressor: String,
    /// The victim's runs beside it that gave a rate.
    pub n: i64,
    /// Its mean rate alone, items/s.
    pub alone_mean: Option<f64>,
    /// Its mean rate beside the aggressor, items/s.
    pub paired_mean: Option<f64>,
    /// `1 - paired / alone`.
    pub slowdown: Option<f64>,
    /// The bottom of the slowdown's 95% interval.
    pub slowdown_low: Option<f64>,
    /// Its top.
    pub slowdown_high: Option<f64>,
    /// 1 when the interval excludes 0.
    pub significant: i64,
    /// Where both ran, as JSON.
    pub placement: String,
}

/// The cells of the runs the filters select, run by run, victim by victim.
pub fn interference(store: &Store, filters: &Filters) -> Result<Vec<StoredCell>, StoreError> {
    let mut sql = Sql::new(
        "SELECT s.name AS system, r.folder, c.victim, c.aggressor, c.n, c.alone_mean, c.paired_mean, c.slowdown, \
         c.slowdown_low, c.slowdown_high, c.significant, c.placement \
         FROM interference_cells c JOIN runs r ON r.id = c.run_id JOIN systems s ON s.id = r.system_id WHERE 1 = 1",
    );
    restrict(&mut sql, filters);
    sql.push(" ORDER BY r.id, c.victim, c.aggressor");
    sql.rows(store, "listing interference cells")
}
