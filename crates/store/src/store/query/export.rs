//! `mlb db export`: one run in Bencher Metric Format ([`super::bencher`]),
//! or the long metrics table as CSV, streamed: each row goes to the output
//! as the store gives it (a million rows once took 1.8 GB, ten times the
//! output, held whole before the first line went out).

use super::bencher::{document, Measure, ENERGY, THROUGHPUT};
use super::error::QueryError;
use super::figures::{counts, grouped, select_figures, Measured};
use super::filters::{restrict, Filters};
use super::render::{csv_number, csv_text};
use super::sql::{Bind, Sql};
use crate::store::{Store, StoreError};
use mlb_judge::report::Rule;
use sqlx::FromRow;

/// The columns of the long table's CSV.
pub const CSV_HEADER: &str = "system,run,run_ids,started,bench,config,instance,device,node,outcome,metric,value,unit";

/// Where an export's text goes, a piece at a time (stdout).
pub type Sink<'a> = dyn FnMut(&str) -> std::io::Result<()> + 'a;

/// Bytes of CSV gathered before they go to the sink.
const CHUNK: usize = 64 * 1024;

/// What `mlb db export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Bencher Metric Format JSON of one run (`bencher run --adapter json`).
    Bencher,
    /// CSV of the long metrics table: one line per instance and metric.
    Csv,
}

/// What an export writes, of which runs.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// What to write.
    pub format: ExportFormat,
    /// With `bencher`: the run (default: the newest run the filters select).
    pub run: Option<i64>,
    /// Which runs.
    pub filters: Filters,
}

/// Writes what `args` ask for to `out`.
pub fn export(store: &Store, args: &ExportOptions, out: &mut Sink<'_>) -> Result<(), QueryError> {
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
fn bencher(store: &Store, args: &ExportOptions) -> Result<String, QueryError> {
    let mut sql = Sql::new("SELECT r.id FROM runs r JOIN systems s ON s.id = r.system_id WHERE 1 = 1");
    if let Some(id) = args.run {
        sql.push(" AND r.id = ").bind(Bind::Int(id));
    }
    restrict(&mut sql, &args.filters);
    sql.push(" ORDER BY r.started_at DESC, r.id DESC LIMIT 1");
    let run: i64 =
        *sql.scalars(store, "choosing the run to export")?.first().ok_or(QueryError::NoRun { run: args.run })?;
    let mut sql = Sql::new("SELECT i.bench AS bench, i.config AS config");
    select_figures(&mut sql);
    sql.push(" FROM instances i WHERE i.run_id = ").bind(Bind::Int(run));
    counts(&mut sql, Rule::Original);
    let rows: Vec<Config> = sql.rows(store, "exporting the run")?;
    let measures: Vec<Measure> = grouped(rows.into_iter().map(|c| (format!("{} {}", c.bench, c.config), c.figures)))
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

/// An instance of a run as the export reads it.
#[derive(FromRow)]
struct Config {
    bench: String,
    config: String,
    #[sqlx(flatten)]
    figures: Measured,
}

/// One metric of one instance: a line of the long table.
#[derive(FromRow)]
struct Metric {
    system: Option<String>,
    run: i64,
    run_ids: Option<String>,
    started: Option<String>,
    bench: Option<String>,
    config: Option<String>,
    instance: i64,
    device: Option<String>,
    node: Option<String>,
    outcome: Option<String>,
    metric: Option<String>,
    value: Option<f64>,
    unit: Option<String>,
}

impl Metric {
    /// Its line of CSV, in the columns of [`CSV_HEADER`].
    fn csv(&self) -> String {
        let text = |t: &Option<String>| csv_text(t.as_deref().unwrap_or_default());
        let cells = [
            text(&self.system),
            self.run.to_string(),
            text(&self.run_ids),
            text(&self.started),
            text(&self.bench),
            text(&self.config),
            self.instance.to_string(),
            text(&self.device),
            text(&self.node),
            text(&self.outcome),
            text(&self.metric),
            csv_number(self.value),
            text(&self.unit),
        ];
        cells.join(",")
    }
}

/// Every metric of every instance of the runs selected: one line each,
/// written to `out` as the rows come. The joins are written in the order
/// SQLite must take them (`CROSS JOIN` fixes it there; it is a plain join
/// elsewhere): runs in their order, a run's instances in theirs (the index
/// by run), an instance's metrics by name (their key). The rows then come
/// in the order asked with no sort, so that the memory an export takes does
/// not grow with the store (a sort of a million metrics held 230 MB).
fn long_csv(store: &Store, args: &ExportOptions, out: &mut Sink<'_>) -> Result<(), QueryError> {
    use futures_util::TryStreamExt;
    let mut sql = Sql::new(
        "SELECT s.name AS system, r.id AS run, r.run_ids, r.started_at AS started, i.bench, i.config, \
         i.id AS instance, i.device, i.node, i.outcome, m.name AS metric, m.value, m.unit \
         FROM runs r CROSS JOIN instances i CROSS JOIN metrics m JOIN systems s ON s.id = r.system_id \
         WHERE i.run_id = r.id AND m.instance_id = i.id",
    );
    if let Some(id) = args.run {
        sql.push(" AND r.id = ").bind(Bind::Int(id));
    }
    restrict(&mut sql, &args.filters);
    sql.push(" ORDER BY r.id, i.id, m.name");
    let failed = |e: sqlx::Error| QueryError::from(StoreError::query(store.location(), "exporting the metrics", &e));
    let mut chunk = format!("{CSV_HEADER}\n");
    store.block_on(async {
        let query = sql.query().try_map(|row| Metric::from_row(&row));
        let mut rows = query.fetch(store.pool());
        while let Some(metric) = rows.try_next().await.map_err(failed)? {
            chunk.push_str(&metric.csv());
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
