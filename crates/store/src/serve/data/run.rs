//! `GET /api/runs/{id}`: one run as `mlb report` shows it (its tables,
//! score against the installed target table of its GPU model, per-GPU and
//! per-node tables, stragglers, telemetry timelines, energy, acceptance
//! verdicts), built by the report's own aggregation from the report texts
//! the store keeps, and the ends of its failed instances' logs. Nothing is
//! read from the run's folder: a run imported before the store kept its
//! texts shows what the store has and says what is missing.

use super::acceptance::{standing, Standing};
use super::params::Params;
use super::runs::RunEntry;
use super::shared::LARGE_TEXT;
use super::{DataError, Page, Reader};
use crate::store::import::kept::inflate;
use crate::store::query::filters::{Filters, RunFilters};
use crate::store::query::runs::runs as listed;
use crate::store::query::sql::Sql;
use mlb_judge::report::source::Source;
use mlb_judge::report::{aggregate_from, Options, Report};
use mlb_record::contract::read::{read_text, Reading, Unreadable};
use mlb_record::contract::report::Report as ReportFile;
use mlb_record::contract::telemetry::Timeline;
use mlb_run::system::SystemDesc;
use serde::Serialize;
use sqlx::FromRow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The run page's query: the run's id (the path's last segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunQuery {
    /// The run's id in the store.
    pub id: i64,
}

impl RunQuery {
    /// Reads the run's id (digits only) and the query string (no parameter
    /// but the common ones).
    pub fn parse(id: &str, query: &str) -> Result<RunQuery, DataError> {
        Params::parse(query, &[])?;
        let number = id.parse::<i64>().ok().filter(|n| *n > 0 && id.bytes().all(|b| b.is_ascii_digit()));
        let id = number.ok_or_else(|| DataError::bad("id", id, "pass the number of a run the runs page lists"))?;
        Ok(RunQuery { id })
    }
}

/// A telemetry timeline the page draws.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineView {
    /// The row of the instance.
    pub label: String,
    /// Its device(s).
    pub device: Option<String>,
    /// Its report file.
    pub file: PathBuf,
    /// Its timeline, cut down to the report's buckets.
    pub timeline: Option<Timeline>,
}

/// The end of a failed instance's log.
#[derive(Clone, Debug, PartialEq, Serialize, FromRow)]
pub struct LogTailView {
    /// The instance's report file, relative to the run's folder.
    pub file: String,
    /// Its place in the file.
    pub entry: i64,
    /// Its bench.
    pub bench: String,
    /// Its device(s).
    pub device: Option<String>,
    /// The log, as its record names it.
    pub log: String,
    /// The log's last 16 KiB.
    pub tail: String,
}

/// The run page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunPage {
    /// The run as the runs page lists it.
    pub run: RunEntry,
    /// Its system's GPU model, whose target table scores it.
    pub gpu_model: String,
    /// What `mlb report --format json` gives for it (none when the store
    /// keeps no report text of it, or none counts).
    pub report: Option<Report>,
    /// The telemetry timelines of the report's chosen instances.
    pub timelines: Vec<TimelineView>,
    /// Its failed instances' log tails.
    pub log_tails: Vec<LogTailView>,
    /// The run folder's `acceptance.json` (the verdicts of `mlb accept`), when it had one.
    pub acceptance: Option<serde_json::Value>,
    /// Who vouches for that record, and whether it judged this run's reports.
    pub acceptance_standing: Option<Standing>,
    /// What the page cannot show, and why (a sentence with the fix each).
    pub notes: Vec<String>,
}

/// The run `query` names.
pub fn run(reader: &Reader, query: &RunQuery) -> Result<RunPage, DataError> {
    let store = reader.store();
    let filters = Filters {
        system: None,
        runs: RunFilters { run: Some(query.id), visible: reader.visible(), ..RunFilters::default() },
    };
    let row = listed(store, &filters)?.pop().ok_or(DataError::NoRun { id: query.id })?;
    let sql = "SELECT s.gpu_model, s.description FROM runs r JOIN systems s ON s.id = r.system_id WHERE r.id = ";
    let system: Vec<RunSystem> = Sql::of_run(sql, query.id, "").rows(store, "reading the run's system")?;
    let (gpu_model, description) = system.into_iter().next().map(|s| (s.gpu_model, s.description)).unwrap_or_default();
    let sql = "SELECT COUNT(*) FROM instances WHERE outcome = 'failed' AND run_id = ";
    let failed: i64 = Sql::of_run(sql, query.id, "").scalars(store, "counting failures")?.pop().unwrap_or(0);
    let sql = "SELECT file, report_hash, LENGTH(body) AS bytes FROM report_texts WHERE run_id = ";
    let stored: Vec<Kept> = Sql::of_run(sql, query.id, "").rows(store, "reading the reports")?;
    let mut hashes = HashMap::new();
    let mut size = 0;
    let mut key = String::new();
    for Kept { file, report_hash, bytes } in stored {
        key.push_str(&report_hash);
        hashes.insert(file, report_hash);
        size += u64::try_from(bytes).unwrap_or(0);
    }
    let folder = PathBuf::from(&row.folder);
    let system = description.and_then(|d| serde_json::from_str(&d).ok());
    let large = size > LARGE_TEXT;
    let Built { report, timelines, notes } =
        reader.runs().get(&query.id, &key, large, || build(reader, query.id, &folder, &gpu_model, &system))?;
    let sql = "SELECT i.file, i.entry, i.bench, i.device, t.log, t.tail FROM log_tails t JOIN instances i \
               ON i.report_hash = t.report_hash AND i.entry = t.entry WHERE i.run_id = ";
    let log_tails: Vec<LogTailView> =
        Sql::of_run(sql, query.id, " ORDER BY i.file, i.entry").rows(store, "reading the log tails")?;
    let sql = "SELECT name, body FROM run_documents WHERE run_id = ";
    let documents: Vec<Document> = Sql::of_run(sql, query.id, "").rows(store, "reading the acceptance record")?;
    let document = |name: &str| documents.iter().find(|d| d.name == name).map(|d| d.body.clone());
    let record = document(ACCEPTANCE);
    let acceptance_standing = record.as_ref().map(|text| {
        standing(text.as_bytes(), document(&format!("{ACCEPTANCE}.sig")).as_deref(), &hashes, reader.signers())
    });
    let acceptance = record.map(|text| serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)));
    Ok(RunPage {
        run: RunEntry { run: row, failed },
        gpu_model,
        report,
        timelines,
        log_tails,
        acceptance,
        acceptance_standing,
        notes,
    })
}

/// A run's system: its GPU model and description (`system.json`), if any.
#[derive(FromRow)]
struct RunSystem {
    gpu_model: String,
    description: Option<String>,
}

/// A report text kept of a run: its file, its hash and its size deflated.
#[derive(FromRow)]
struct Kept {
    file: String,
    report_hash: String,
    bytes: i64,
}

/// A document of a run folder beside its reports, by name.
#[derive(FromRow)]
struct Document {
    name: String,
    body: String,
}

/// A report text of a run, deflated.
#[derive(FromRow)]
struct Text {
    file: String,
    body: Vec<u8>,
}

/// What a run's report texts give: the costly part of its page, built
/// once for the requests that ask for it at once ([`super::shared`]).
#[derive(Clone, Debug)]
pub struct Built {
    report: Option<Report>,
    timelines: Vec<TimelineView>,
    notes: Vec<String>,
}

/// The report of the run `id` from the texts the store keeps of it (its
/// folder `folder`, its system's GPU model and description).
fn build(
    reader: &Reader,
    id: i64,
    folder: &Path,
    gpu_model: &str,
    system: &Option<SystemDesc>,
) -> Result<Built, DataError> {
    let store = reader.store();
    let sql = "SELECT file, body FROM report_texts WHERE run_id = ";
    let texts: Vec<Text> = Sql::of_run(sql, id, " ORDER BY file").rows(store, "reading the reports")?;
    let mut notes = Vec::new();
    let mut stored = Stored { system: system.clone(), texts: HashMap::new() };
    // Each deflated body is dropped once inflated.
    for Text { file, body } in texts {
        match inflate(&body) {
            Some(t) => {
                stored.texts.insert(folder.join(&file), t);
            }
            None => notes.push(format!("the stored text of {file} is damaged; re-import the run's folder")),
        }
    }
    let report = if stored.texts.is_empty() {
        notes.push(
            "the store keeps no report file of this run (it was imported by an older mlb): re-import its folder \
             with `mlb db import FOLDER` to see its tables, timelines and logs"
                .into(),
        );
        None
    } else {
        let targets = reader.targets(gpu_model);
        if targets.is_none() {
            notes.push(format!("no target table is installed for the GPU model `{gpu_model}`: no score"));
        }
        let opts = Options { targets, ..Options::default() };
        match aggregate_from(folder, stored.reading(), None, &opts, &stored) {
            Ok(report) => Some(report),
            Err(e) => {
                notes.push(e.to_string());
                None
            }
        }
    };
    let timelines = report
        .iter()
        .flat_map(|r| &r.sampled)
        .map(|s| TimelineView {
            label: s.label.clone(),
            device: s.device.clone(),
            file: s.file.clone(),
            timeline: s.timeline.clone(),
        })
        .collect();
    Ok(Built { report, timelines, notes })
}

/// The record of `mlb accept` a run's page shows, by its name in the run's folder.
const ACCEPTANCE: &str = "acceptance.json";

/// A run's report texts and system description as the store keeps them.
struct Stored {
    system: Option<SystemDesc>,
    /// Each report file's text, by its path in the run's folder.
    texts: HashMap<PathBuf, String>,
}

impl Stored {
    /// The entries of the texts, as `mlb report` reads the folder (files
    /// in name order).
    fn reading(&self) -> Reading {
        let mut files: Vec<(&PathBuf, &String)> = self.texts.iter().collect();
        files.sort();
        let mut reading = Reading { files: files.len(), ..Reading::default() };
        for (path, text) in files {
            match read_text(path, text) {
                Ok(entries) => reading.entries.extend(entries),
                Err(Unreadable { path, reason }) => reading.unreadable.push(Unreadable { path, reason }),
            }
        }
        reading
    }
}

impl Source for Stored {
    fn system(&self, _dir: &Path) -> Option<SystemDesc> {
        self.system.clone()
    }

    fn report(&self, file: &Path) -> Option<ReportFile> {
        mlb_record::contract::read::from_text(self.texts.get(file)?).ok()
    }
}

impl Page for RunPage {
    /// `mlb report --format csv` of the run (empty when there is no report).
    fn csv(&self) -> String {
        self.report.as_ref().map(mlb_judge::report::render::csv::render).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_text_is_read_as_the_report_file_it_was() {
        let text = r#"{"name": "vae", "suite": "s", "vcd": "0", "run_id": 0, "jr_id": 0, "completed": true,
            "telemetry": {"sample_hz": 1.0, "samples": 3, "window_seconds": 3.0, "items": 300,
            "energy": {"joules": 600.0, "joules_per_item": 2.0, "source": "gpu"},
            "gpus": [{"device": "0", "throttled_fraction": 0.0, "degraded_link": false}],
            "slot": {"cpu_throttled_fraction": null}, "throttled": false, "degraded_link": false,
            "timeline": {"t": [0.5], "gpu0.power_w": [100.0]}},
            "hostname": "host-a", "gpu": "Model X", "start_time": "2026-01-03T10:00:00Z", "batch_size": 64,
            "train_item": {"avg": 80.0, "min": 79.0, "max": 81.0, "range": 2.0, "unit": "items/sec"}, "batch_loss": [1.0, 0.5]}"#;
        let path = PathBuf::from("/run/a.json");
        let stored = Stored { system: None, texts: HashMap::from([(path.clone(), text.to_string())]) };
        let report = stored.report(&path).expect("a report");
        assert_eq!(report.telemetry.expect("its telemetry").timeline.t, [0.5]);
        assert_eq!(stored.reading().entries.len(), 1);
        assert!(stored.report(Path::new("/run/other.json")).is_none());
    }
}
