//! What `mlb report --reports DIR --db` reads of the store: the system the
//! reports would be imported as, and for a row of the report the last runs
//! of that system holding its config (the commands layer judges the row
//! against them, [`mlb_judge::report::history`]).

use super::error::QueryError;
use super::figures::counts;
use super::sql::Sql;
use crate::store::import::system::{fallback_name, SystemRow};
use crate::store::Store;
use mlb_judge::report::{Row as ReportRow, Rule};
use mlb_record::contract::read::{read_folder, Entry};
use serde_json::{Map, Value};
use std::path::Path;

/// The name `mlb db import` gives the system of the reports in `dir`.
pub fn default_system(dir: &Path) -> Result<String, QueryError> {
    let reading = read_folder(dir).map_err(crate::store::StoreError::from)?;
    let entries: Vec<&Entry> = reading.entries.iter().collect();
    let system = SystemRow::of(mlb_run::system::read(dir).as_ref(), &entries);
    let imported = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let fallback = fallback_name(std::slice::from_ref(&system), &imported);
    Ok(system.named(None, &fallback).name)
}

/// Whether a stored run's folder is the reports folder `reports` itself or
/// below it (as `mlb db import` names a folder: resolved, links and all):
/// such a run is that folder's reports again, not another run.
pub(crate) fn imported_from(reports: &Path) -> impl Fn(&str) -> bool {
    let here = std::fs::canonicalize(reports)
        .or_else(|_| std::path::absolute(reports))
        .unwrap_or_else(|_| reports.to_path_buf());
    move |folder| Path::new(folder).starts_with(&here)
}

/// Whether an instance's stored `config` (its arguments, a JSON object)
/// holds the values that name `row` (the arguments that vary in the report).
fn same_config(config: &str, row: &ReportRow) -> bool {
    let stored: Map<String, Value> = serde_json::from_str(config).unwrap_or_default();
    row.args.iter().all(|(k, v)| stored.get(k) == Some(v))
}

/// One instance of a past run: its run, the run's folder, its config and items/s.
#[derive(sqlx::FromRow)]
struct Past {
    run: i64,
    folder: String,
    config: String,
    items_per_s: f64,
}

/// The items/s of the instances that count of the last `k` runs of `system`
/// holding `row`'s config, newest first, by run; runs imported from the
/// reports folder itself (or below it) are left out.
pub fn past_runs(
    store: &Store,
    system: &str,
    row: &ReportRow,
    rule: Rule,
    reports: &Path,
    k: usize,
) -> Result<Vec<(i64, Vec<f64>)>, QueryError> {
    let mut sql = Sql::new(
        "SELECT r.id AS run, r.folder, i.config, i.items_per_s FROM instances i JOIN runs r ON r.id = i.run_id \
         JOIN systems s ON s.id = r.system_id WHERE s.name = ",
    );
    sql.text(system).push(" AND i.bench = ").text(&row.bench).push(" AND i.items_per_s IS NOT NULL");
    counts(&mut sql, rule);
    sql.push(" ORDER BY r.started_at DESC, r.id DESC");
    let rows: Vec<Past> = sql.rows(store, "reading the history of the report's rows")?;
    let own = imported_from(reports);
    let mut runs: Vec<(i64, Vec<f64>)> = Vec::new();
    for Past { run, folder, config, items_per_s: value } in rows {
        if own(&folder) || !same_config(&config, row) {
            continue;
        }
        if runs.last().is_some_and(|(last, _)| *last == run) {
            runs.last_mut().expect("a last run").1.push(value);
        } else if runs.len() == k {
            break;
        } else {
            runs.push((run, vec![value]));
        }
    }
    Ok(runs)
}
