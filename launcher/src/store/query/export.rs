//! `mlb db export`: one run in Bencher Metric Format ([`super::bencher`]),
//! or the long metrics table as CSV, streamed: each row goes to the output
//! as the store gives it (a million rows once took 1.8 GB, ten times the
//! output, held whole before the first line went out).

use super::args::{ExportArgs, ExportFormat};
use super::bencher::{document, Measure, ENERGY, THROUGHPUT};
use super::error::QueryError;
use super::figures::{counts, grouped, select_figures};
use super::filters::restrict;
use super::render::{csv_number, csv_text};
use super::sql::{Bind, Sql};
use crate::report::Rule;
use crate::store::{Store, StoreError};
use sqlx::Row;

/// The columns of the long table's CSV.
pub const CSV_HEADER: &str = "system,run,run_ids,started,bench,config,instance,device,node,outcome,metric,value,unit";

/// Where an export's text goes, a piece at a time (stdout).
pub type Sink<'a> = dyn FnMut(&str) -> std::io::Result<()> + 'a;

/// Bytes of CSV gathered before they go to the sink.
const CHUNK: usize = 64 * 1024;

/// Writes what `args` ask for to `out`.
pub fn export(store: &Store, args: &ExportArgs, out: &mut Sink<'_>) -> Result<(), QueryError> {
    match args.format {
        ExportFormat::Bencher => out(&bencher(store, args)?).map_err(QueryError::Output),
        ExportFormat::Csv => long_csv(store, args, out),
    }
}

/// The run `args` name (else the newest the filters select) in Bencher
/// Metric Format: per bench and config (a benchmark named `BENCH CONFIG`:
/// the original suite's benches share their arguments), the mean items/s
/// of the instances that count between the smallest and the largest, and
/// the same of joules per item where it can be a measure (as `mlb report`
/// takes them).
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
    let mut sql = Sql::new("SELECT i.bench, i.config");
    select_figures(&mut sql);
    sql.push(" FROM instances i WHERE i.run_id = ").bind(Bind::Int(run));
    counts(&mut sql, Rule::Original);
    let rows = sql.rows(store, "exporting the run", |row| {
        let name = format!("{} {}", row.try_get::<String, _>(0)?, row.try_get::<String, _>(1)?);
        Ok((name, row.try_get(2)?, row.try_get(3)?))
    })?;
    let measures: Vec<Measure> = grouped(rows)
        .into_iter()
        .flat_map(|(config, instances)| {
            [(THROUGHPUT, instances.speed()), (ENERGY, instances.energy())].into_iter().filter_map(
                move |(measure, s)| {
                    Some(Measure {
                        benchmark: config.clone(),
                        measure,
                        value: s.mean?,
                        lower_value: s.min,
                        upper_value: s.max,
                    })
                },
            )
        })
        .collect();
    Ok(document(&measures))
}

/// Every metric of every instance of the runs selected: one line each,
/// written to `out` as the rows come.
fn long_csv(store: &Store, args: &ExportArgs, out: &mut Sink<'_>) -> Result<(), QueryError> {
    use futures_util::TryStreamExt;
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
    let text =
        |row: &sqlx::any::AnyRow, k| row.try_get::<Option<String>, _>(k).map(|t| csv_text(&t.unwrap_or_default()));
    let line = |row: &sqlx::any::AnyRow| -> Result<String, sqlx::Error> {
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
    };
    let failed = |e: sqlx::Error| QueryError::from(StoreError::query(store.location(), "exporting the metrics", &e));
    let mut chunk = format!("{CSV_HEADER}\n");
    store.block_on(async {
        let query = sql.query();
        let mut rows = query.fetch(store.pool());
        while let Some(row) = rows.try_next().await.map_err(failed)? {
            chunk.push_str(&line(&row).map_err(failed)?);
            chunk.push('\n');
            if chunk.len() >= CHUNK {
                out(&chunk).map_err(QueryError::Output)?;
                chunk.clear();
            }
        }
        Ok::<_, QueryError>(())
    })?;
    out(&chunk).map_err(QueryError::Output)
}
