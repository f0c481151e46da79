//! Writing run folders: each its system, its run, its labels, its
//! instances and their metrics, its kept figures, a batch of folders in one transaction (a
//! folder is stored whole or not at all; a commit writes every page it
//! changed again: fewer commits, fewer writes). Rows go in batches of many
//! rows a statement, every value a bound parameter, every text through
//! [`bind_text`]. The run is written as its folder is now: an instance
//! stored before (the same identity) is updated in place, one its folder
//! no longer holds is removed, and a run of the same folder left without
//! instances (stored under another system before) is removed.

use super::kept::{LogTail, StoredText};
use super::system::SystemRow;
use crate::store::{bind_f64, bind_text, run_figures, Backend};
use mlb_record::contract::read::Metric;
use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::{Any, AnyConnection, Row};
use std::collections::{BTreeMap, HashMap, HashSet};

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
    /// The push key that sent it.
    pub pushed_by: Option<i64>,
    /// Until when only that key sees it.
    pub embargo_until: Option<String>,
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
    /// Its instances, as its folder holds them now.
    pub instances: Vec<InstanceRow>,
    /// Its report files' texts.
    pub texts: Vec<StoredText>,
    /// The ends of its failed instances' logs.
    pub log_tails: Vec<LogTail>,
    /// The documents beside its reports, by name.
    pub documents: Vec<(String, String)>,
    /// The cells of its interference matrix, when it has one.
    pub interference: Vec<mlb_judge::interfere::Cell>,
}

/// An instance's row and its metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstanceRow {
    /// sha256 (hex) of its run folder and what names it (rows.rs).
    pub identity: String,
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

/// Instances a statement: 21 values each, within both backends' limits on
/// bound parameters (SQLite 32,766, PostgreSQL 65,535).
const INSTANCES_A_STATEMENT: usize = 1000;
/// Metrics a statement: 4 values each.
const METRICS_A_STATEMENT: usize = 5000;
/// Ids or identities a statement, in an `IN` list.
const IDS_A_STATEMENT: usize = 1000;

const INSTANCE_COLUMNS: &str = "run_id, identity, report_hash, entry, file, bench, suite, config, device, gpu, node, \
     outcome, failure_cause, failure_message, fails_check, started_at, items_per_s, loss, joules_per_item, \
     gpu_energy, flagged";

/// What writing a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Instances not stored before.
    pub new: usize,
    /// Instances stored before, updated to what their folder holds now.
    pub updated: usize,
}

/// Writes `runs` on `conn` (of `backend`) inside one transaction. Nothing
/// is written when it fails.
pub async fn write_runs(
    conn: &mut AnyConnection,
    backend: Backend,
    runs: &[NewRun<'_>],
) -> Result<Written, sqlx::Error> {
    use sqlx::Connection;
    let mut tx = conn.begin().await?;
    let mut written = Written::default();
    for run in runs {
        let run = write_run(&mut tx, backend, run).await?;
        written.new += run.new;
        written.updated += run.updated;
    }
    tx.commit().await?;
    Ok(written)
}

/// Writes `run` on `tx` (of `backend`), inside the caller's transaction.
async fn write_run(tx: &mut AnyConnection, backend: Backend, run: &NewRun<'_>) -> Result<Written, sqlx::Error> {
    let system_id = system_id(tx, &run.system).await?;
    let (run_id, run_is_new) = run_id(tx, system_id, run).await?;
    for (key, value) in run.tags {
        let query = sqlx::query(
            "INSERT INTO tags (run_id, key, value) VALUES ($1, $2, $3) \
             ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
        )
        .bind(run_id);
        bind_text(bind_text(query, Some(key.as_str())), Some(value.as_str())).execute(&mut *tx).await?;
    }
    let identities: Vec<&str> = run.instances.iter().map(|row| row.identity.as_str()).collect();
    let stored_in = stored_by_run(tx, backend, &identities).await?;
    let stored: i64 = stored_in.values().sum();
    // A new run whose instances are all new has nothing stored to replace.
    let replaces = !run_is_new || stored > 0;
    // Runs (of another system, the same folder) that lose instances to this one.
    let losing: Vec<i64> = stored_in.into_keys().filter(|id| *id != run_id).collect();
    // RETURNING gives its rows in no set order: each by its identity.
    let mut returned: HashMap<String, i64> = HashMap::with_capacity(run.instances.len());
    for batch in run.instances.chunks(INSTANCES_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO instances ({INSTANCE_COLUMNS}) VALUES {} ON CONFLICT (identity) DO UPDATE SET {} \
             RETURNING id, identity",
            backend.placeholders(batch.len(), 21),
            INSTANCE_COLUMNS.split(", ").map(|c| format!("{c} = excluded.{c}")).collect::<Vec<_>>().join(", ")
        );
        let query = batch.iter().fold(sqlx::query(&sql), |q, row| bind_instance(q, run_id, row));
        for row in query.fetch_all(&mut *tx).await? {
            returned.insert(row.try_get(1)?, row.try_get(0)?);
        }
    }
    let ids: Vec<i64> = returned.values().copied().collect();
    for batch in ids.chunks(IDS_A_STATEMENT).filter(|_| replaces) {
        let sql = format!("DELETE FROM metrics WHERE instance_id IN {}", backend.placeholders(1, batch.len()));
        batch.iter().fold(sqlx::query(&sql), |q, id| q.bind(*id)).execute(&mut *tx).await?;
    }
    let metrics: Vec<(i64, &Metric)> = run
        .instances
        .iter()
        .filter_map(|row| returned.get(&row.identity).map(|id| (*id, row)))
        .flat_map(|(id, row)| row.metrics.iter().map(move |m| (id, m)))
        .collect();
    for batch in metrics.chunks(METRICS_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO metrics (instance_id, name, value, unit) VALUES {}",
            backend.placeholders(batch.len(), 4)
        );
        let query = batch.iter().fold(sqlx::query(&sql), |q, (id, (name, value, unit))| {
            bind_text(bind_text(q.bind(*id), Some(&**name)).bind(*value), Some(&**unit))
        });
        query.execute(&mut *tx).await?;
    }
    if replaces {
        remove_stale(tx, backend, run_id, &ids).await?;
        sqlx::query("DELETE FROM report_texts WHERE run_id = $1").bind(run_id).execute(&mut *tx).await?;
    }
    write_kept(tx, backend, run_id, run).await?;
    let counted = run.instances.iter().map(|row| run_figures::Counted {
        bench: &row.bench,
        config: &row.config,
        fails_check: row.fails_check.as_deref(),
        items_per_s: row.items_per_s,
        joules_per_item: row.joules_per_item,
    });
    run_figures::write(tx, backend, run_id, &run_figures::groups(counted)).await?;
    for batch in losing.chunks(run_figures::RUNS_A_READ) {
        run_figures::refill(tx, backend, batch).await?;
    }
    sqlx::query(
        "DELETE FROM runs WHERE folder = $1 AND id <> $2 AND NOT EXISTS \
         (SELECT 1 FROM instances i WHERE i.run_id = runs.id)",
    )
    .bind(run.folder.as_str())
    .bind(run_id)
    .execute(&mut *tx)
    .await?;
    let stored = stored as usize;
    Ok(Written { new: ids.len().saturating_sub(stored), updated: stored.min(ids.len()) })
}

/// How many of the instances of `identities` each run stores, by run id
/// (none: no entry), a batch at a time.
async fn stored_by_run(
    conn: &mut AnyConnection,
    backend: Backend,
    identities: &[&str],
) -> Result<BTreeMap<i64, i64>, sqlx::Error> {
    let mut stored = BTreeMap::new();
    for batch in identities.chunks(IDS_A_STATEMENT) {
        let sql = format!(
            "SELECT run_id, COUNT(*) FROM instances WHERE identity IN {} GROUP BY run_id",
            backend.placeholders(1, batch.len())
        );
        for row in batch.iter().fold(sqlx::query(&sql), |q, v| q.bind(*v)).fetch_all(&mut *conn).await? {
            *stored.entry(row.try_get::<i64, _>(0)?).or_default() += row.try_get::<i64, _>(1)?;
        }
    }
    Ok(stored)
}

/// Removes the instances of the run `run_id` other than `kept`: those its
/// folder no longer holds (and those an older mlb stored without identity).
async fn remove_stale(
    conn: &mut AnyConnection,
    backend: Backend,
    run_id: i64,
    kept: &[i64],
) -> Result<(), sqlx::Error> {
    let kept: HashSet<i64> = kept.iter().copied().collect();
    let all = sqlx::query("SELECT id FROM instances WHERE run_id = $1").bind(run_id).fetch_all(&mut *conn).await?;
    let stale: Vec<i64> = all
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<Vec<i64>, _>>()?
        .into_iter()
        .filter(|id| !kept.contains(id))
        .collect();
    for batch in stale.chunks(IDS_A_STATEMENT) {
        let sql = format!("DELETE FROM instances WHERE id IN {}", backend.placeholders(1, batch.len()));
        batch.iter().fold(sqlx::query(&sql), |q, id| q.bind(*id)).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Report texts a statement (4 values each; the bodies are the bulk).
const TEXTS_A_STATEMENT: usize = 200;

/// Writes what `run` (the run `run_id`) keeps beyond its figures: its
/// report texts (the caller removed those stored of the run), log tails
/// and documents (the newest read replaces the one stored), and the cells
/// of its interference matrix.
async fn write_kept(
    conn: &mut AnyConnection,
    backend: Backend,
    run_id: i64,
    run: &NewRun<'_>,
) -> Result<(), sqlx::Error> {
    for batch in run.texts.chunks(TEXTS_A_STATEMENT) {
        let sql = format!(
            "INSERT INTO report_texts (report_hash, run_id, file, body) VALUES {} ON CONFLICT (run_id, file) \
             DO UPDATE SET report_hash = excluded.report_hash, body = excluded.body",
            backend.placeholders(batch.len(), 4)
        );
        let query = batch.iter().fold(sqlx::query(&sql), |q, t| {
            bind_text(q.bind(t.report_hash.as_str()).bind(run_id), Some(t.file.as_str())).bind(t.body.as_slice())
        });
        query.execute(&mut *conn).await?;
    }
    for tail in &run.log_tails {
        let query = sqlx::query(
            "INSERT INTO log_tails (report_hash, entry, log, tail) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (report_hash, entry) DO UPDATE SET log = excluded.log, tail = excluded.tail",
        )
        .bind(tail.report_hash.as_str())
        .bind(tail.entry);
        bind_text(bind_text(query, Some(tail.log.as_str())), Some(tail.tail.as_str())).execute(&mut *conn).await?;
    }
    for (name, body) in &run.documents {
        let query = sqlx::query(
            "INSERT INTO run_documents (run_id, name, body) VALUES ($1, $2, $3) \
             ON CONFLICT (run_id, name) DO UPDATE SET body = excluded.body",
        )
        .bind(run_id);
        bind_text(bind_text(query, Some(name.as_str())), Some(body.as_str())).execute(&mut *conn).await?;
    }
    super::interference::write(conn, run_id, &run.interference).await
}

/// The id of `system`'s row, added when new.
async fn system_id(conn: &mut AnyConnection, system: &SystemRow) -> Result<i64, sqlx::Error> {
    let fingerprint = system.fingerprint();
    let query = sqlx::query(
        "INSERT INTO systems (name, fingerprint, host, cpu, gpu_model, gpu_count, driver, runtime_versions, \
         description) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (fingerprint) DO NOTHING",
    );
    let query = [&system.name, &fingerprint, &system.host, &system.cpu, &system.gpu_model]
        .into_iter()
        .fold(query, |q, text| bind_text(q, Some(text.as_str())))
        .bind(system.gpu_count);
    [Some(&system.driver), Some(&system.runtime_versions), system.description.as_ref()]
        .into_iter()
        .fold(query, |q, text| bind_text(q, text.map(String::as_str)))
        .execute(&mut *conn)
        .await?;
    sqlx::query("SELECT id FROM systems WHERE fingerprint = $1")
        .bind(fingerprint.as_str())
        .fetch_one(&mut *conn)
        .await?
        .try_get(0)
}

/// The id of the run of `run.folder` on `system_id`, added when new, else
/// brought up to what its folder holds now (its first import time kept);
/// and whether it is new.
async fn run_id(conn: &mut AnyConnection, system_id: i64, run: &NewRun<'_>) -> Result<(i64, bool), sqlx::Error> {
    let select = || {
        bind_text(
            sqlx::query("SELECT id FROM runs WHERE system_id = $1 AND folder = $2").bind(system_id),
            Some(run.folder.as_str()),
        )
    };
    let stored: Option<i64> = select().fetch_optional(&mut *conn).await?.map(|row| row.try_get(0)).transpose()?;
    let query = sqlx::query(
        "INSERT INTO runs (system_id, folder, run_ids, started_at, imported_at, mlb_version, jobs_hash, \
         image_digest, runtime, nodes, isolation, embargo_until, pushed_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (system_id, folder) DO UPDATE SET run_ids = excluded.run_ids, started_at = excluded.started_at, \
         mlb_version = excluded.mlb_version, jobs_hash = COALESCE(excluded.jobs_hash, runs.jobs_hash), \
         image_digest = excluded.image_digest, runtime = excluded.runtime, nodes = excluded.nodes, \
         isolation = excluded.isolation, embargo_until = excluded.embargo_until, pushed_by = excluded.pushed_by",
    )
    .bind(system_id);
    [
        Some(run.folder.as_str()),
        Some(run.run_ids.as_str()),
        run.started_at.as_deref(),
        Some(run.imported_at.as_str()),
        run.mlb_version.as_deref(),
        run.jobs_hash.as_deref(),
        run.image_digest.as_deref(),
        run.runtime.as_deref(),
        Some(run.nodes.as_str()),
        run.isolation.as_deref(),
        run.embargo_until.as_deref(),
    ]
    .into_iter()
    .fold(query, bind_text)
    .bind(run.pushed_by)
    .execute(&mut *conn)
    .await?;
    match stored {
        Some(id) => Ok((id, false)),
        None => Ok((select().fetch_one(&mut *conn).await?.try_get(0)?, true)),
    }
}

/// Binds the 21 values of `row` (of the run `run_id`) in the order of
/// [`INSTANCE_COLUMNS`].
fn bind_instance<'q>(
    query: Query<'q, Any, AnyArguments<'q>>,
    run_id: i64,
    row: &'q InstanceRow,
) -> Query<'q, Any, AnyArguments<'q>> {
    let query =
        bind_text(query.bind(run_id), Some(row.identity.as_str())).bind(row.report_hash.as_str()).bind(row.entry);
    let query = [
        Some(row.file.as_str()),
        Some(row.bench.as_str()),
        row.suite.as_deref(),
        Some(row.config.as_str()),
        row.device.as_deref(),
        row.gpu.as_deref(),
        row.node.as_deref(),
        Some(row.outcome),
        row.failure_cause.as_deref(),
        row.failure_message.as_deref(),
        row.fails_check.as_deref(),
        row.started_at.as_deref(),
    ]
    .into_iter()
    .fold(query, bind_text);
    let query = [row.items_per_s, row.loss, row.joules_per_item].into_iter().fold(query, bind_f64);
    query.bind(row.gpu_energy).bind(row.flagged)
}
