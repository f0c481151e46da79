//! Writing one run folder: its system, its run, its labels, its new
//! instances and their metrics, in one transaction. Rows go in batches of
//! many rows a statement, every value a bound parameter. A report stored
//! meanwhile by another import (same file hash and entry) is left as it is.

use super::extract::Metric;
use super::kept::{LogTail, StoredText};
use super::system::SystemRow;
use crate::store::{bind_f64, Backend};
use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::{Any, AnyConnection, Row};
use std::collections::HashMap;

/// A run folder's rows.
#[derive(Debug)]
pub struct NewRun<'a> {
    /// Its system.
    pub system: SystemRow,
    /// The folder, absolute.
    pub folder: String,
    /// The reports' `run_id`s, comma-separated.
    pub run_ids: String,
    /// The earliest start of its instances.
    pub started_at: Option<String>,
    /// Now.
    pub imported_at: String,
    /// mlb's version, from the reports' provenance.
    pub mlb_version: Option<String>,
    /// sha256 of the jobs file, when known.
    pub jobs_hash: Option<String>,
    /// The container image's digest.
    pub image_digest: Option<String>,
    /// The container runtime.
    pub runtime: Option<String>,
    /// The nodes, comma-separated.
    pub nodes: String,
    /// What confined the instances.
    pub isolation: Option<String>,
    /// Its labels.
    pub tags: &'a [(String, String)],
    /// Its new instances.
    pub instances: Vec<InstanceRow>,
    /// Its new report files' texts.
    pub texts: Vec<StoredText>,
    /// The ends of its failed instances' logs.
    pub log_tails: Vec<LogTail>,
    /// The documents beside its reports, by name.
    pub documents: Vec<(String, String)>,
}

/// An instance's row and its metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstanceRow {
    pub report_hash: String,
    pub entry: i64,
    pub file: String,
    pub bench: String,
    pub suite: Option<String>,
    pub config: String,
    pub device: Option<String>,
    pub gpu: Option<String>,
    pub node: Option<String>,
    pub outcome: &'static str,
    pub failure_cause: Option<String>,
    pub failure_message: Option<String>,
    pub fails_check: Option<String>,
    pub started_at: Option<String>,
    pub items_per_s: Option<f64>,
    pub loss: Option<f64>,
    pub joules_per_item: Option<f64>,
    pub gpu_energy: i64,
    pub flagged: i64,
    pub metrics: Vec<Metric>,
}

/// Instances a statement: 20 values each, within both backends' limits on
/// bound parameters (SQLite 32,766, PostgreSQL 65,535).
const INSTANCES_A_STATEMENT: usize = 1000;
/// Metrics a statement: 4 values each.
const METRICS_A_STATEMENT: usize = 5000;

const INSTANCE_COLUMNS: &str = "run_id, report_hash, entry, file, bench, suite, config, device, gpu, node, outcome, \
     failure_cause, failure_message, fails_check, started_at, items_per_s, loss, joules_per_item, gpu_energy, flagged";

/// Writes `run` on `conn` (of `backend`) inside a transaction; returns how many of its
/// instances were new. Nothing is written when it fails.
pub async fn write_run(conn: &mut AnyConnection, backend: Backend, run: &NewRun<'_>) -> Result<usize, sqlx::Error> {
    use sqlx::Connection;
    let mut tx = conn.begin().await?;
    let system_id = system_id(&mut tx, &run.system).await?;
    let run_id = run_id(&mut tx, system_id, run).await?;
    for (key, value) in run.tags {
        sqlx::query(
            "INSERT INTO tags (run_id, key, value) VALUES ($1, $2, $3) \
             ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
        )
        .bind(run_id)
        .bind(key.as_str())
        .bind(value.as_str())
        .execute(&mut *tx)
        .await?;
    }
    let mut ids: HashMap<(String, i64), i64> = HashMap::with_capacity(run.instances.len());
    for batch in run.instances.chunks(INSTANCES_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO instances ({INSTANCE_COLUMNS}) VALUES {} \
             ON CONFLICT (report_hash, entry) DO NOTHING RETURNING id, report_hash, entry",
            backend.placeholders(batch.len(), 20)
        );
        let mut query = sqlx::query(&sql);
        for row in batch {
            query = bind_instance(query, run_id, row);
        }
        for returned in query.fetch_all(&mut *tx).await? {
            ids.insert((returned.try_get(1)?, returned.try_get(2)?), returned.try_get(0)?);
        }
    }
    let metrics: Vec<(i64, &Metric)> = run
        .instances
        .iter()
        .filter_map(|row| ids.get(&(row.report_hash.clone(), row.entry)).map(|id| (*id, row)))
        .flat_map(|(id, row)| row.metrics.iter().map(move |m| (id, m)))
        .collect();
    for batch in metrics.chunks(METRICS_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO metrics (instance_id, name, value, unit) VALUES {}",
            backend.placeholders(batch.len(), 4)
        );
        let mut query = sqlx::query(&sql);
        for (id, (name, value, unit)) in batch {
            query = query.bind(*id).bind(name.as_str()).bind(*value).bind(unit.as_str());
        }
        query.execute(&mut *tx).await?;
    }
    write_kept(&mut tx, backend, run_id, run).await?;
    tx.commit().await?;
    Ok(ids.len())
}

/// Report texts a statement (4 values each; the bodies are the bulk).
const TEXTS_A_STATEMENT: usize = 200;

/// Writes what `run` (the run `run_id`) keeps beyond its figures: its
/// report texts and log tails (a row stored meanwhile left as it is) and
/// its documents (the newest read replaces the one stored).
async fn write_kept(
    conn: &mut AnyConnection,
    backend: Backend,
    run_id: i64,
    run: &NewRun<'_>,
) -> Result<(), sqlx::Error> {
    for batch in run.texts.chunks(TEXTS_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO report_texts (report_hash, run_id, file, body) VALUES {} ON CONFLICT (report_hash) DO NOTHING",
            backend.placeholders(batch.len(), 4)
        );
        let query = batch.iter().fold(sqlx::query(&sql), |q, t| {
            q.bind(t.report_hash.as_str()).bind(run_id).bind(t.file.as_str()).bind(t.body.as_slice())
        });
        query.execute(&mut *conn).await?;
    }
    for tail in &run.log_tails {
        sqlx::query(
            "INSERT INTO log_tails (report_hash, entry, log, tail) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (report_hash, entry) DO NOTHING",
        )
        .bind(tail.report_hash.as_str())
        .bind(tail.entry)
        .bind(tail.log.as_str())
        .bind(tail.tail.as_str())
        .execute(&mut *conn)
        .await?;
    }
    for (name, body) in &run.documents {
        sqlx::query(
            "INSERT INTO run_documents (run_id, name, body) VALUES ($1, $2, $3) \
             ON CONFLICT (run_id, name) DO UPDATE SET body = excluded.body",
        )
        .bind(run_id)
        .bind(name.as_str())
        .bind(body.as_str())
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The id of `system`'s row, added when new.
async fn system_id(conn: &mut AnyConnection, system: &SystemRow) -> Result<i64, sqlx::Error> {
    let fingerprint = system.fingerprint();
    sqlx::query(
        "INSERT INTO systems (name, fingerprint, host, cpu, gpu_model, gpu_count, driver, runtime_versions, \
         description) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (fingerprint) DO NOTHING",
    )
    .bind(system.name.as_str())
    .bind(fingerprint.as_str())
    .bind(system.host.as_str())
    .bind(system.cpu.as_str())
    .bind(system.gpu_model.as_str())
    .bind(system.gpu_count)
    .bind(system.driver.as_str())
    .bind(system.runtime_versions.as_str())
    .bind(system.description.as_deref())
    .execute(&mut *conn)
    .await?;
    sqlx::query("SELECT id FROM systems WHERE fingerprint = $1")
        .bind(fingerprint.as_str())
        .fetch_one(&mut *conn)
        .await?
        .try_get(0)
}

/// The id of the run of `run.folder` on `system_id`, added when new (a
/// folder imported again with new reports adds them to its run).
async fn run_id(conn: &mut AnyConnection, system_id: i64, run: &NewRun<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query(
        "INSERT INTO runs (system_id, folder, run_ids, started_at, imported_at, mlb_version, jobs_hash, \
         image_digest, runtime, nodes, isolation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT (system_id, folder) DO NOTHING",
    )
    .bind(system_id)
    .bind(run.folder.as_str())
    .bind(run.run_ids.as_str())
    .bind(run.started_at.as_deref())
    .bind(run.imported_at.as_str())
    .bind(run.mlb_version.as_deref())
    .bind(run.jobs_hash.as_deref())
    .bind(run.image_digest.as_deref())
    .bind(run.runtime.as_deref())
    .bind(run.nodes.as_str())
    .bind(run.isolation.as_deref())
    .execute(&mut *conn)
    .await?;
    sqlx::query("SELECT id FROM runs WHERE system_id = $1 AND folder = $2")
        .bind(system_id)
        .bind(run.folder.as_str())
        .fetch_one(&mut *conn)
        .await?
        .try_get(0)
}

/// Binds the 20 values of `row` (of the run `run_id`) in the order of
/// [`INSTANCE_COLUMNS`].
fn bind_instance<'q>(
    query: Query<'q, Any, AnyArguments<'q>>,
    run_id: i64,
    row: &'q InstanceRow,
) -> Query<'q, Any, AnyArguments<'q>> {
    let query = query
        .bind(run_id)
        .bind(row.report_hash.as_str())
        .bind(row.entry)
        .bind(row.file.as_str())
        .bind(row.bench.as_str())
        .bind(row.suite.as_deref())
        .bind(row.config.as_str())
        .bind(row.device.as_deref())
        .bind(row.gpu.as_deref())
        .bind(row.node.as_deref())
        .bind(row.outcome)
        .bind(row.failure_cause.as_deref())
        .bind(row.failure_message.as_deref())
        .bind(row.fails_check.as_deref())
        .bind(row.started_at.as_deref());
    let query = [row.items_per_s, row.loss, row.joules_per_item].into_iter().fold(query, bind_f64);
    query.bind(row.gpu_energy).bind(row.flagged)
}
