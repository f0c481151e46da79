//! `mlb db vote`: the vote over deterministic runs' fingerprints across the
//! runs the store keeps and a run folder not imported (docs/results.md,
//! "The vote across runs"). The instances are `mlb report`'s, voted by its
//! own vote ([`mlb_judge::report::reproducibility`]): grouped by config
//! (bench and arguments, never the run's id, time or seed), device and
//! stack, so that one node is one vote among the fleet's history.
//!
//! Only the report texts of deterministic instances are read: the store's
//! `config` of an instance names its arguments, so one statement finds the
//! files holding one (by the key `deterministic` in the text, a condition
//! the store evaluates without inflating anything), and the report's own
//! rule then decides on the arguments read back. A store of 100,000
//! throughput reports inflates none of them.

use super::error::QueryError;
use super::filters::{restrict, Filters};
use super::regressions::imported_from;
use super::sql::Sql;
use crate::store::import::kept::inflate;
use crate::store::import::rows::config_text;
use crate::store::Store;
use mlb_judge::report::reproducibility::{instances_of, vote, Group, Instance, Verdict};
use mlb_judge::report::source::{Disk, Source};
use mlb_record::contract::determinism::DETERMINISTIC;
use mlb_record::contract::read::{from_text, read_folder_told, read_text, Entry};
use mlb_record::contract::report::Report as ReportFile;
use mlb_record::exit::{EXIT_FAILED, EXIT_OK};
use mlb_run::system::SystemDesc;
use serde::Serialize;
use sqlx::FromRow;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// What to vote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VoteOptions {
    /// Which stored runs.
    pub filters: Filters,
    /// Only this bench, or config (its arguments as the store keeps them).
    pub bench: Option<String>,
    /// A run folder to vote with the stored runs, read as `mlb report`
    /// reads one (not imported).
    pub reports: Option<PathBuf>,
}

/// The vote across runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Votes {
    /// The store (its password never shown).
    pub store: String,
    /// The run folder voted with the stored runs, if one was given.
    pub reports: Option<PathBuf>,
    /// Stored runs with an instance in the vote.
    pub stored_runs: usize,
    /// Stored instances in the vote.
    pub stored_instances: usize,
    /// Instances of the run folder in the vote.
    pub new_instances: usize,
    /// The vote groups, as `mlb report --format json` gives them.
    pub reproducibility: Vec<Group>,
    /// What was left out, and groups without a stored instance.
    pub notes: Vec<String>,
}

impl Votes {
    /// 1 when a group has outliers or is not reproducible, else 0.
    pub fn exit_code(&self) -> i32 {
        let failed = |g: &Group| matches!(g.verdict, Verdict::Outliers { .. } | Verdict::NotReproducible { .. });
        if self.reproducibility.iter().any(failed) {
            EXIT_FAILED
        } else {
            EXIT_OK
        }
    }
}

/// A stored report text of a deterministic instance, with its run.
#[derive(FromRow)]
struct Kept {
    run: i64,
    folder: String,
    system: String,
    file: String,
    body: Vec<u8>,
}

/// A stored report file in the vote: its text (inflated once, read again
/// for its instances' fingerprints) and its run.
struct StoredFile {
    text: String,
    run: i64,
    system: String,
}

/// The report files of the vote: the stored ones by their path (the run's
/// folder and the file), the run folder's on disk.
struct Files {
    stored: HashMap<PathBuf, StoredFile>,
}

impl Source for Files {
    fn system(&self, _dir: &Path) -> Option<SystemDesc> {
        None
    }

    fn report(&self, file: &Path) -> Option<ReportFile> {
        match self.stored.get(file) {
            Some(kept) => from_text(&kept.text).ok(),
            None => Disk.report(file),
        }
    }
}

/// The stored texts of the deterministic instances `options` select (runs
/// imported from the run folder itself left out), with their entries.
fn stored(store: &Store, options: &VoteOptions, notes: &mut Vec<String>) -> Result<(Files, Vec<Entry>), QueryError> {
    let mut sql = Sql::new(
        "SELECT r.id AS run, r.folder, s.name AS system, t.file, t.body FROM \
         (SELECT DISTINCT run_id, file FROM instances WHERE config LIKE ",
    );
    sql.text(&format!("%\"{DETERMINISTIC}\":%"));
    if let Some(bench) = &options.bench {
        sql.push(" AND (bench = ").text(bench).push(" OR config = ").text(bench).push(")");
    }
    sql.push(
        ") d JOIN report_texts t ON t.run_id = d.run_id AND t.file = d.file JOIN runs r ON r.id = d.run_id \
         JOIN systems s ON s.id = r.system_id WHERE 1 = 1",
    );
    restrict(&mut sql, &options.filters);
    sql.push(" ORDER BY r.id, t.file");
    let kept: Vec<Kept> = sql.rows(store, "reading the texts of deterministic reports")?;
    let own = options.reports.as_deref().map(imported_from);
    let mut files = Files { stored: HashMap::new() };
    let mut entries = Vec::new();
    for Kept { run, folder, system, file, body } in kept {
        if own.as_ref().is_some_and(|own| own(&folder)) {
            continue;
        }
        let path = Path::new(&folder).join(&file);
        // A folder stored under two system names is one run's reports: voted once.
        if files.stored.contains_key(&path) {
            continue;
        }
        let Some(text) = inflate(&body) else {
            notes.push(format!("the stored text of {file} (stored run {run}) is damaged; re-import the run's folder"));
            continue;
        };
        match read_text(&path, &text) {
            Ok(read) => entries.extend(read),
            Err(e) => notes.push(format!("left out {} (stored run {run}): {}", e.path.display(), e.reason)),
        }
        files.stored.insert(path, StoredFile { text, run, system });
    }
    Ok((files, entries))
}

/// Whether `entry` is of `bench` (a bench, or a config as the store keeps it).
fn of_bench(entry: &Entry, bench: &str) -> bool {
    entry.bench_label() == bench || config_text(entry) == bench
}

/// The vote `options` ask for; `file_read` is called as each file of the
/// run folder is read. Nothing to vote (no deterministic instance stored
/// nor in the folder) is an error saying so.
pub fn votes(store: &Store, options: &VoteOptions, file_read: &(dyn Fn() + Sync)) -> Result<Votes, QueryError> {
    let mut notes = Vec::new();
    let (files, mut entries) = stored(store, options, &mut notes)?;
    if let Some(dir) = &options.reports {
        let reading =
            read_folder_told(dir, file_read).map_err(|e| QueryError::Report(mlb_judge::report::folder_error(e)))?;
        notes.extend(reading.unreadable.iter().map(|u| format!("left out {}: {}", u.path.display(), u.reason)));
        entries.extend(reading.entries);
    }
    if let Some(bench) = &options.bench {
        entries.retain(|e| of_bench(e, bench));
    }
    let mut instances = instances_of(&entries, &files);
    if instances.is_empty() {
        return Err(QueryError::NothingToVote {
            store: store.location().to_string(),
            reports: options.reports.clone(),
        });
    }
    let new_run = options.reports.as_ref().map(|dir| format!("new run {}", dir.display()));
    for instance in &mut instances {
        instance.name.origin = match files.stored.get(&instance.name.file) {
            Some(kept) => Some(format!("stored run {} of system {}", kept.run, kept.system)),
            None => new_run.clone(),
        };
    }
    let stored = |i: &Instance| files.stored.get(&i.name.file).map(|kept| kept.run);
    let stored_runs = instances.iter().filter_map(stored).collect::<BTreeSet<_>>().len();
    let stored_instances = instances.iter().filter(|i| stored(i).is_some()).count();
    let new_instances = instances.len() - stored_instances;
    let groups = vote(instances);
    for g in &groups {
        if stored_runs > 0 && g.instances.iter().all(|n| !files.stored.contains_key(&n.file)) {
            notes.push(format!(
                "{} on {}: no stored instance of this config, device and stack; the new run's instances are voted \
                 alone",
                g.config, g.device
            ));
        }
    }
    if stored_runs == 0 {
        notes.push("the store holds no deterministic instance the filters select: the new run is voted alone".into());
    }
    Ok(Votes {
        store: store.location().to_string(),
        reports: options.reports.clone(),
        stored_runs,
        stored_instances,
        new_instances,
        reproducibility: groups,
        notes,
    })
}
