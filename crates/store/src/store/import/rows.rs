//! A run folder's rows: its system, its run, and an instance row (with its
//! metrics) for each entry of its new report files.

use super::interference;
use super::kept::{self, LogTail, StoredText};
use super::scan::{ReportFile, RunFolder};
use super::system::SystemRow;
use super::write::{InstanceRow, NewRun};
use super::Labels;
use chrono::{DateTime, NaiveDateTime, Utc};
use mlb_judge::report::Check;
use mlb_record::contract::read::{Entry, Extra};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The store's form of a time: RFC 3339 in UTC, to the microsecond.
const TIME: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";

/// Now, in the store's form.
pub fn now() -> String {
    Utc::now().format(TIME).to_string()
}

/// `text` in the store's form of a time: RFC 3339 (any offset), mlb's
/// `start_time` (`2026-11-24 13:30:48.123456`, UTC) or a report file
/// name's stamp (`20261124-133048-123456`).
pub fn normalise_time(text: &str) -> Option<String> {
    let utc = DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc).naive_utc())
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f"))
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y%m%d-%H%M%S-%6f"))
        .ok()?;
    Some(utc.format(TIME).to_string())
}

/// The stamp of a report file's name (`suite.name.R0.D0.20261124-133048-123456.json`).
fn stamp_of(file: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    normalise_time(stem.rsplit('.').next()?)
}

/// The system of `folder`, from its `system.json` (read inside it) else
/// all its reports, not named yet.
pub fn system_of(folder: &RunFolder) -> SystemRow {
    let entries: Vec<&Entry> = folder.files.iter().flat_map(|f| f.entries.iter().map(|e| &e.0)).collect();
    let described = folder
        .open()
        .and_then(|dir| dir.read_bounded(Path::new(mlb_record::contract::SYSTEM_FILE), kept::DOCUMENT_BYTES).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    SystemRow::of(described.as_ref(), &entries)
}

/// The rows of `folder`'s report files (all new), of `system`, labelled by
/// `labels`, imported at `now`.
pub fn new_run<'a>(folder: &RunFolder, system: SystemRow, labels: &'a Labels, now: &str) -> NewRun<'a> {
    let entries: Vec<&Entry> = folder.files.iter().flat_map(|f| f.entries.iter().map(|e| &e.0)).collect();
    let dir = folder.open();
    let mut instances = Vec::with_capacity(entries.len());
    let mut extras_all = Vec::with_capacity(entries.len());
    let (mut texts, mut log_tails) = (Vec::with_capacity(folder.files.len()), Vec::new());
    for file in &folder.files {
        let relative = file.path.strip_prefix(&folder.path).unwrap_or(&file.path).to_string_lossy().into_owned();
        for (i, ((entry, check), extra)) in file.entries.iter().zip(&file.extras).enumerate() {
            let row = instance(file, &relative, i, entry, *check, extra);
            if let (true, Some(log), Some(dir)) = (row.outcome == "failed", &extra.log, &dir) {
                if let Some(tail) = kept::log_tail(dir, &folder.path, log) {
                    log_tails.push(LogTail {
                        report_hash: file.hash.clone(),
                        entry: row.entry,
                        log: log.clone(),
                        tail,
                    });
                }
            }
            instances.push(row);
        }
        texts.push(StoredText { report_hash: file.hash.clone(), file: relative, body: file.body.clone() });
        extras_all.extend(&file.extras);
    }
    let folder_text = match &labels.origin {
        Some(origin) => origin.folder(&folder.path),
        None => folder.path.to_string_lossy().into_owned(),
    };
    let documents = dir.as_ref().map(kept::documents).unwrap_or_default();
    let identities = identities(&folder_text, &instances_keys(&instances, &extras_all));
    for (row, identity) in instances.iter_mut().zip(identities) {
        row.identity = identity;
    }
    let first = |get: fn(&Extra) -> &Option<String>| extras_all.iter().find_map(|e| get(e).clone());
    let joined = |items: BTreeSet<&str>| items.into_iter().collect::<Vec<_>>().join(",");
    NewRun {
        system,
        folder: folder_text,
        run_ids: joined(extras_all.iter().filter_map(|e| e.run_id.as_deref()).collect()),
        started_at: instances.iter().filter_map(|i| i.started_at.clone()).min(),
        imported_at: now.to_string(),
        mlb_version: first(|e| &e.mlb_version),
        jobs_hash: labels.jobs_hash.clone(),
        pushed_by: labels.pushed_by,
        embargo_until: labels.embargo_until.clone(),
        image_digest: first(|e| &e.image_digest),
        runtime: first(|e| &e.runtime),
        nodes: joined(entries.iter().filter_map(|e| e.node()).collect()),
        isolation: first(|e| &e.isolation),
        tags: &labels.tags,
        instances,
        texts,
        log_tails,
        interference: interference::cells(&documents),
        documents,
    }
}

/// What names each of `rows` (whose extras are `extras`), beside its run
/// folder and its place among rows alike: the fields a report's identity
/// is made of, never its file's bytes or name.
fn instances_keys(rows: &[InstanceRow], extras: &[&Extra]) -> Vec<(String, (String, i64))> {
    rows.iter()
        .zip(extras)
        .map(|(row, extra)| {
            let started = extra.started_at.as_deref().and_then(normalise_time);
            let fields = [
                Some(row.bench.as_str()),
                row.suite.as_deref(),
                Some(row.config.as_str()),
                row.device.as_deref(),
                row.node.as_deref(),
                extra.run_id.as_deref(),
                started.as_deref(),
                extra.unique_id.as_deref(),
            ];
            // Each field marked present or absent: `None` and `""` differ.
            let key = fields.iter().map(|f| f.map_or("-".to_string(), |f| format!("+{f}"))).collect::<Vec<_>>();
            (key.join("\0"), (row.file.clone(), row.entry))
        })
        .collect()
}

/// The identity of each instance of the run folder `folder` whose keys
/// (and places: file name, entry) are `keys`: sha256 (hex) of the folder,
/// the key and how many instances of the same key come before it, in the
/// order of file names and entries. Entries alike in every field (the
/// original's appended files hold such) stay apart, and an entry keeps its
/// identity when its file is appended to or rewritten.
fn identities(folder: &str, keys: &[(String, (String, i64))]) -> Vec<String> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].1.cmp(&keys[b].1));
    let mut before: HashMap<&str, usize> = HashMap::new();
    let mut out = vec![String::new(); keys.len()];
    for i in order {
        let count = before.entry(keys[i].0.as_str()).or_default();
        let mut hash = Sha256::new();
        for part in [folder, keys[i].0.as_str(), &count.to_string()] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        out[i] = mlb_record::digest::hex(&hash.finalize());
        *count += 1;
    }
    out
}

/// How the store keeps `entry`'s config (`instances.config`): its
/// arguments as a JSON object, keys sorted.
pub fn config_text(entry: &Entry) -> String {
    let config: serde_json::Map<String, serde_json::Value> =
        entry.args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    serde_json::Value::Object(config).to_string()
}

/// The row of the `index`th entry of `file`.
fn instance(
    file: &ReportFile,
    relative: &str,
    index: usize,
    entry: &Entry,
    check: Option<Check>,
    extra: &Extra,
) -> InstanceRow {
    let text = |v: &Option<std::sync::Arc<str>>| v.as_deref().map(str::to_string);
    let conditions = entry.conditions.unwrap_or_default();
    let failed = entry.completed == Some(false) || entry.failure.is_some();
    InstanceRow {
        identity: String::new(),
        report_hash: file.hash.clone(),
        entry: index as i64,
        file: relative.to_string(),
        bench: entry.bench_label().to_string(),
        suite: text(&entry.suite),
        config: config_text(entry),
        device: text(&entry.vcd),
        gpu: text(&entry.gpu),
        node: entry.node().map(str::to_string),
        outcome: if failed { "failed" } else { "completed" },
        failure_cause: entry.failure.as_ref().map(|f| f.0.clone()),
        failure_message: entry.failure.as_ref().map(|f| f.1.clone()),
        fails_check: check.map(crate::store::run_figures::check_name),
        started_at: extra.started_at.as_deref().and_then(normalise_time).or_else(|| stamp_of(&file.path)),
        items_per_s: entry.avg.and_then(mlb_record::contract::physical::items_per_second),
        loss: extra.loss,
        joules_per_item: conditions.joules_per_item.and_then(mlb_record::contract::physical::joules_per_item),
        gpu_energy: i64::from(conditions.gpu_energy),
        flagged: i64::from(entry.conditions.is_some_and(|c| c.flagged())),
        metrics: extra.metrics.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_every_form_read_the_same_way() {
        let want = Some("2026-11-24T13:30:48.123456Z".to_string());
        assert_eq!(normalise_time("2026-11-24 13:30:48.123456"), want);
        assert_eq!(normalise_time("2026-11-24T14:30:48.123456+01:00"), want);
        assert_eq!(normalise_time("20261124-133048-123456"), want);
        assert_eq!(stamp_of(Path::new("/r/s.vae.R0.D1.20261124-133048-123456.json")), want);
        assert_eq!(normalise_time("yesterday"), None);
    }
}
