//! `mlb db import DIR...`: mlb's run folders and the original suite's
//! report folders, at any depth, into the store.
//!
//! - [`scan`]: the report files under a folder, each read and parsed once
//!   (with what is kept beyond `mlb report`'s view, the record crate's
//!   `Extra`), judged as `mlb report` judges the folder, hashed, grouped by
//!   run folder;
//! - [`system`]: which system a run folder is of;
//! - [`rows`]: a run folder's rows;
//! - [`kept`]: what is kept beyond the figures (report texts, log tails, documents);
//! - [`write`]: run folders written a batch a transaction.
//!
//! Idempotent: a run folder whose report files are all stored (their
//! content hashes, with their texts: a file imported before the store kept
//! texts is read again, to add them) is skipped; a folder with a new or
//! changed file is written again whole, as it is now. An instance is
//! stored once, by its identity (its run folder and the fields that name
//! it, rows.rs), not its file's bytes: an appended file grown, or a report
//! rewritten in place, updates its instances and adds the new ones. A run
//! folder cut short (a killed import, a full disk) left nothing and is
//! written whole by the next import: folders are written a batch a
//! transaction. Two imports at once both land, with
//! no duplicate: the second writer of an instance updates it.

pub mod kept;
pub mod rows;
pub mod scan;
pub mod system;
pub mod write;

use super::{Backend, Store, StoreError};
use mlb_record::contract::read::Unreadable;
use rayon::prelude::*;
use scan::RunFolder;
use sqlx::Row;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

/// How what is imported is labelled.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// The system name (`--system NAME`) instead of the host's.
    pub system: Option<String>,
    /// `--tag KEY=VALUE` labels of every run imported.
    pub tags: Vec<(String, String)>,
    /// sha256 (hex) of the jobs file, when mlb imports the run it launched.
    pub jobs_hash: Option<String>,
}

/// What an import did.
#[derive(Debug, Default)]
pub struct Imported {
    /// Run folders with new or changed reports, written.
    pub runs: usize,
    /// Instances not stored before.
    pub instances: usize,
    /// Instances stored before, updated (their file changed).
    pub updated: usize,
    /// Report files already stored (or met twice), skipped.
    pub skipped_files: usize,
    /// Files and folders left out, and why.
    pub unreadable: Vec<Unreadable>,
}

impl Imported {
    /// What it did, for a person: one line, then the files left out.
    pub fn render(&self, store: &Store) -> String {
        let mut out = format!(
            "imported {} report{} of {} run folder{} into {}; {} report file{} already stored\n",
            self.instances,
            plural(self.instances),
            self.runs,
            plural(self.runs),
            store.location(),
            self.skipped_files,
            plural(self.skipped_files),
        );
        if self.updated > 0 {
            out.insert_str(out.len() - 1, &format!("; {} report{} updated", self.updated, plural(self.updated)));
        }
        for bad in &self.unreadable {
            out.push_str(&format!("left out {}: {}\n", bad.path.display(), bad.reason));
        }
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Run folders read and written at a time: the next batch is read while
/// one is written.
const FOLDERS_A_BATCH: usize = 16;

/// Hashes looked up a statement.
const HASHES_A_STATEMENT: usize = 1000;

/// Imports every report under each of `dirs` into `store`.
pub fn import(store: &Store, dirs: &[PathBuf], labels: &Labels) -> Result<Imported, StoreError> {
    let mut imported = Imported::default();
    for dir in dirs {
        let found = scan::scan(dir).map_err(|source| StoreError::Reports { source })?;
        imported.unreadable.extend(found.unreadable);
        let mut stored =
            store.known_hashes(found.folders.iter().flat_map(|f| f.files.iter().map(|r| r.hash.as_str())))?;
        let mut folders = Vec::new();
        // The system is of every report of the folder, stored or not.
        let systems: Vec<system::SystemRow> = found.folders.iter().map(rows::system_of).collect();
        let fallback = system::fallback_name(&systems, &found.dir);
        for (folder, system) in found.folders.into_iter().zip(systems) {
            let system = system.named(labels.system.as_deref(), &fallback);
            // A file met twice (copies under two folders) counts once. A
            // folder with a new file is written whole, as it is now.
            let new = folder.files.iter().filter(|f| stored.insert(f.hash.clone())).count();
            imported.skipped_files += folder.files.len() - new;
            if new > 0 {
                folders.push((folder, system));
            }
        }
        let now = rows::now();
        let build = |batch: &[(RunFolder, system::SystemRow)]| -> Vec<write::NewRun<'_>> {
            batch.par_iter().map(|(folder, system)| rows::new_run(folder, system.clone(), labels, &now)).collect()
        };
        let mut batches = folders.chunks(FOLDERS_A_BATCH);
        let mut ready = batches.next().map(build).unwrap_or_default();
        loop {
            let next = batches.next();
            let (built, written) = rayon::join(|| next.map(build), || store.write_runs(&ready));
            let (runs, written) = written?;
            imported.runs += runs;
            imported.instances += written.new;
            imported.updated += written.updated;
            match built {
                Some(b) => ready = b,
                None => break,
            }
        }
    }
    Ok(imported)
}

impl Store {
    /// Which of `hashes` are stored. A batch's answer comes back as one
    /// text (the hashes joined by commas): a row each would cost more than
    /// the lookup.
    fn known_hashes<'a>(&self, hashes: impl Iterator<Item = &'a str>) -> Result<HashSet<String>, StoreError> {
        let hashes: Vec<&str> = hashes.collect();
        let joined = match self.backend() {
            Backend::Sqlite => "group_concat(DISTINCT report_hash)",
            Backend::Postgres => "string_agg(DISTINCT report_hash, ',')",
        };
        let mut known = HashSet::new();
        for batch in hashes.chunks(HASHES_A_STATEMENT) {
            let list = self.backend().placeholders(1, batch.len());
            let sql = format!("SELECT {joined} FROM report_texts WHERE report_hash IN {list}");
            let query = batch.iter().fold(sqlx::query(&sql), |q, h| q.bind(*h));
            let found: Option<String> = self
                .block_on(query.fetch_one(self.pool()))
                .and_then(|row| row.try_get(0))
                .map_err(|e| StoreError::query(self.location(), "looking up the reports stored", &e))?;
            known.extend(found.iter().flat_map(|f| f.split(',')).map(str::to_string));
        }
        Ok(known)
    }

    /// Writes `runs` in one transaction, retried when another writer held
    /// the store; returns how many were written and what they wrote.
    fn write_runs(&self, runs: &[write::NewRun<'_>]) -> Result<(usize, write::Written), StoreError> {
        let Some(first) = runs.first() else { return Ok((0, write::Written::default())) };
        let what = || match runs.len() {
            1 => format!("importing the run folder {}", first.folder),
            n => format!("importing the run folder {} (and {} more)", first.folder, n - 1),
        };
        let mut tries = 0;
        loop {
            let done = self.block_on(async {
                let mut conn = self.pool().acquire().await?;
                write::write_runs(&mut conn, self.backend(), runs).await
            });
            match done {
                Err(e) if contended(&e) && tries < RETRIES => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20 * tries));
                }
                done => return Ok((runs.len(), done.map_err(|e| StoreError::query(self.location(), what(), &e))?)),
            }
        }
    }
}

/// Times a batch of run folders is written again after another writer got in its way.
const RETRIES: u64 = 10;

/// Whether `error` is another writer's doing, worth a retry: SQLite's busy
/// or locked store (5, 6, 517: a snapshot gone stale), PostgreSQL's
/// serialization failure or deadlock (40001, 40P01) or a unique row added
/// meanwhile (23505).
fn contended(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(e) => {
            matches!(e.code().as_deref(), Some("5" | "6" | "517" | "40001" | "40P01" | "23505"))
        }
        sqlx::Error::PoolTimedOut => true,
        _ => false,
    }
}
