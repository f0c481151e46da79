//! `mlb db export`: one run in Bencher Metric Format ([`super::bencher`]),
//! or the long metrics table as CSV.

use super::args::{ExportArgs, ExportFormat};
use super::bencher::{document, Measure, ENERGY, THROUGHPUT};
use super::error::QueryError;
use super::figures::counts;
use super::filters::restrict;
use super::render::{csv_number, csv_text};
use super::sql::{Bind, Sql};
use crate::report::Rule;
use crate::store::Store;
use sqlx::Row;

/// The columns of the long table's CSV.
pub const CSV_HEADER: &str = "system,run,run_ids,started,bench,config,instance,device,node,outcome,metric,value,unit";

/// What `args` ask for, as text.
pub fn export(store: &Store, args: &ExportArgs) -> Result<String, QueryError> {
    match args.format {
        ExportFormat::Bencher => bencher(store, args),
        ExportFormat::Csv => long_csv(store, args),
    }
}

/// The run `args` name (else the newest the filters select) in Bencher
/// Metric Format: per config, the mean items/s of the instances that count
/// between the smallest and the largest, and the same of joules per item.
fn bencher(store: &Store, args: &ExportArgs) -> Result<String, QueryError> {
    let mut sql = Sql::new("SELECT r.id FROM runs r JOIN systems s ON s.id = r.system_id WHERE 1 = 1");
    if let Some(id) = args.run {
        sql.push(" AND r.id = ").bind(Bind::Int(id));
    }
    restrict(&mut sql, &args.filters);
    sql.push(" ORDER BY r.started_at DESC, r.id DESC LIMIT 1");
    let run: i64 = *sql
        .rows(store, "choosing the run to export", |row| row.try_get(0))?
        .first()
        .ok_or(QueryError::NoRun { run: args.run })?;
    let mut sql = Sql::new(
        "SELECT i.config, AVG(i.items_per_s), MIN(i.items_per_s), MAX(i.items_per_s), \
         AVG(i.joules_per_item), MIN(i.joules_per_item), MAX(i.joules_per_item) FROM instances i WHERE i.run_id = ",
    );
    sql.bind(Bind::Int(run));
    counts(&mut sql, Rule::Original);
    sql.push(" GROUP BY i.config ORDER BY i.config");
    let rows = sql.rows(store, "exporting the run", |row| {
        let get = |k| row.try_get::<Option<f64>, _>(k);
        Ok((row.try_get::<String, _>(0)?, [get(1)?, get(2)?, get(3)?], [get(4)?, get(5)?, get(6)?]))
    })?;
    let measures: Vec<Measure> = rows
        .into_iter()
        .flat_map(|(config, speed, energy)| {
            [(THROUGHPUT, speed), (ENERGY, energy)].into_iter().filter_map(move |(measure, [mean, lo, hi])| {
                Some(Measure { benchmark: config.clone(), measure, value: mean?, lower_value: lo, upper_value: hi })
            })
        })
        .collect();
    Ok(document(&measures))
}

/// Every metric of every instance of the runs selected: one line each.
fn long_csv(store: &Store, args: &ExportArgs) -> Result<String, QueryError> {
    let mut sql = Sql::new(
        "SELECT s.name, r.id, r.run_ids, r.started_at, i.bench, i.config, i.id, i.device, i.node, i.outcome, \
         m.name, m.value, m.unit FROM metrics m JOIN instances i ON i.id = m.instance_id \
         JOIN runs r ON r.id = i.run_id JOIN systems s ON s.id = r.system_id WHERE 1 = 1",
    );
    if let Some(id) = args.run {
        sql.push(" AND r.id = ").bind(Bind::Int(id));
    }
    restrict(&mut sql, &args.filters);
    sql.push(" ORDER BY r.id, i.id, m.name");
    let mut out = format!("{CSV_HEADER}\n");
    let text =
        |row: &sqlx::any::AnyRow, k| row.try_get::<Option<String>, _>(k).map(|t| csv_text(&t.unwrap_or_default()));
    let lines = sql.rows(store, "exporting the metrics", |row| {
        let cells = [
            text(row, 0)?,
            row.try_get::<i64, _>(1)?.to_string(),
            text(row, 2)?,
            text(row, 3)?,
            text(row, 4)?,
            text(row, 5)?,
            row.try_get::<i64, _>(6)?.to_string(),
            text(row, 7)?,
            text(row, 8)?,
            text(row, 9)?,
            text(row, 10)?,
            csv_number(row.try_get(11)?),
            text(row, 12)?,
        ];
        Ok(cells.join(","))
    })?;
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}
