//! `mlb db import DIR...`: mlb's run folders and the original suite's
//! report folders, at any depth, into the store.
//!
//! - [`scan`]: the report files under a folder, each read and parsed once
//!   (with what is kept beyond `mlb report`'s view, the record crate's
//!   `Extra`), judged as `mlb report` judges the folder, hashed, handed on
//!   a run folder at a time as soon as it is read;
//! - [`system`]: which system a run folder is of;
//! - [`rows`]: a run folder's rows;
//! - [`kept`]: what is kept beyond the figures (report texts, log tails, documents);
//! - [`interference`]: the cells of a folder's interference matrix;
//! - [`write`]: run folders written a batch a transaction.
//!
//! What is held at once is two batches of run folders, not the tree: one
//! written by a thread of its own while the next is read (folders naming
//! no host read before any names one wait: they are named after it).
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

pub mod interference;
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
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How what is imported is labelled.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// The system name (`--system NAME`) instead of the host's.
    pub system: Option<String>,
    /// `--label KEY=VALUE` labels of every run imported.
    pub tags: Vec<(String, String)>,
    /// sha256 (hex) of the jobs file, when mlb imports the run it launched.
    pub jobs_hash: Option<String>,
    /// Where the folders come from, when not from this host's disk.
    pub origin: Option<Origin>,
    /// The push key that sent them (`mlb serve --accept-push`).
    pub pushed_by: Option<i64>,
    /// Until when only that key sees them (the store's form of a time).
    pub embargo_until: Option<String>,
}

/// Folders that come from another host (a push, a pull), unpacked under
/// `root`: each is stored under `name` and its path below `root`, not the
/// path it was unpacked at, so that pushing or pulling it again finds it.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The folder they were unpacked in, links resolved.
    pub root: PathBuf,
    /// What stands for `root` in the store (`push://SYSTEM/RUN`).
    pub name: String,
}

impl Origin {
    /// The stored name of the folder at `path`, under `root`.
    pub fn folder(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rest) if rest.as_os_str().is_empty() => self.name.clone(),
            Ok(rest) => format!("{}/{}", self.name, rest.to_string_lossy()),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

/// What an import did.
#[derive(Debug, Default)]
pub struct Imported {
    /// Report files read (stored before or not).
    pub files: usize,
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
    /// Adds what `other` did (another import's) to this.
    pub fn absorb(&mut self, other: Imported) {
        self.files += other.files;
        self.runs += other.runs;
        self.instances += other.instances;
        self.updated += other.updated;
        self.skipped_files += other.skipped_files;
        self.unreadable.extend(other.unreadable);
    }

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

    /// What it did in one line, for a log: `1202 files, 1150 reports
    /// imported of 40 run folders (0 updated), 50 files already stored, 2
    /// left out` (the files counted with those left out).
    pub fn summary(&self) -> String {
        format!(
            "{} files, {} reports imported of {} run folders ({} updated), {} files already stored, {} left out",
            self.files + self.unreadable.len(),
            self.instances,
            self.runs,
            self.updated,
            self.skipped_files,
            self.unreadable.len()
        )
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Report files written a transaction (whole run folders: a batch closes
/// with the folder that reaches it). A commit writes each page it changed
/// again, and the store's indexes on hashes change pages all over: on
/// 100,000 reports (schema 5, 2 CPUs), 5,000 a transaction took 11.2 s and
/// held 340 MB, 10,000 9.9 s and 350 MB, 20,000 10.5 s and 370 to 420 MB
/// (medians of 3; docs/results.md).
const REPORTS_A_TRANSACTION: usize = 10_000;

/// Hashes looked up a statement.
const HASHES_A_STATEMENT: usize = 1000;

/// Imports every report under each of `dirs` into `store`: each run folder
/// as soon as its files are read, a batch of folders a transaction,
/// written by a thread of its own while the next folders are read.
/// `files_read` is called with the number of report files of each run
/// folder read (a command's progress).
pub fn import(
    store: &Store,
    dirs: &[PathBuf],
    labels: &Labels,
    files_read: &(dyn Fn(u64) + Sync),
) -> Result<Imported, StoreError> {
    // One batch is written while the next is read: two held at most.
    let (batches, written) = std::sync::mpsc::sync_channel::<Batch>(0);
    let now = rows::now();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            Writer { store, labels, now: &now, met: HashSet::new(), imported: Imported::default() }.run(written)
        });
        let read = read(dirs, labels, files_read, &batches);
        drop(batches);
        let mut imported = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        // A writer that failed closed the channel: its error is the cause.
        let (files, unreadable) = read?;
        imported.files = files;
        imported.unreadable = unreadable;
        Ok(imported)
    })
}

/// Run folders to write in one transaction, each with its system, named.
type Batch = Vec<(RunFolder, system::SystemRow)>;

/// Reads every report under each of `dirs`, a batch of run folders at a
/// time into `batches`: the report files read and those left out.
fn read(
    dirs: &[PathBuf],
    labels: &Labels,
    files_read: &(dyn Fn(u64) + Sync),
    batches: &std::sync::mpsc::SyncSender<Batch>,
) -> Result<(usize, Vec<Unreadable>), StoreError> {
    let (mut files, mut left_out) = (0, Vec::new());
    for dir in dirs {
        let scan = scan::Scan::open(dir).map_err(|source| StoreError::Reports { source })?;
        let mut importing = Importing {
            labels,
            dir: &scan.dir,
            fallback: labels.system.clone(),
            waiting: Vec::new(),
            batch: Vec::new(),
            reports: 0,
            files_read,
            files: 0,
            batches,
        };
        let mut stopped = false;
        let unreadable = scan
            .each_folder(|folder| match importing.add(folder) {
                Ok(()) => ControlFlow::Continue(()),
                Err(Stopped) => {
                    stopped = true;
                    ControlFlow::Break(())
                }
            })
            .map_err(|source| StoreError::Reports { source })?;
        files += importing.files;
        if stopped || importing.finish().is_err() {
            // The writer stopped: its error says why.
            break;
        }
        left_out.extend(unreadable);
    }
    Ok((files, left_out))
}

/// The writer stopped (it failed): nothing more is read.
struct Stopped;

/// An import of one folder under way: run folders in, batches out.
struct Importing<'a> {
    labels: &'a Labels,
    /// The folder imported, links resolved.
    dir: &'a Path,
    /// The name of the systems whose folders name no host
    /// ([`system::fallback_name`]), once known: the first host a folder
    /// names, in the reader's order (or `--system`, which names them all).
    fallback: Option<String>,
    /// Folders naming no host met before the name is known: held until it is.
    waiting: Batch,
    /// Folders to write next, named.
    batch: Batch,
    /// Report files in `batch`.
    reports: usize,
    /// Told the report files of each run folder read.
    files_read: &'a (dyn Fn(u64) + Sync),
    /// Report files read.
    files: usize,
    /// Where full batches go: the writer.
    batches: &'a std::sync::mpsc::SyncSender<Batch>,
}

impl Importing<'_> {
    /// Takes the next run folder the scan read, and hands a batch on when one is full.
    fn add(&mut self, folder: RunFolder) -> Result<(), Stopped> {
        self.files += folder.files.len();
        (self.files_read)(folder.files.len() as u64);
        // The system is of every report of the folder, stored or not.
        let system = rows::system_of(&folder);
        if self.fallback.is_none() {
            if system.host.is_empty() {
                self.waiting.push((folder, system));
                return Ok(());
            }
            self.fallback = Some(system::fallback_name(std::slice::from_ref(&system), self.dir));
            for (folder, system) in std::mem::take(&mut self.waiting) {
                self.queue(folder, system)?;
            }
        }
        self.queue(folder, system)
    }

    /// Queues `folder` of `system`, named, to be written.
    fn queue(&mut self, folder: RunFolder, system: system::SystemRow) -> Result<(), Stopped> {
        let fallback = self.fallback.as_deref().unwrap_or_default();
        let system = system.named(self.labels.system.as_deref(), fallback);
        self.reports += folder.files.len();
        self.batch.push((folder, system));
        if self.reports >= REPORTS_A_TRANSACTION {
            self.hand_on()?;
        }
        Ok(())
    }

    /// Hands what is left on once the folder is read: the folders waiting
    /// for a name get the folder's (no folder named a host).
    fn finish(mut self) -> Result<(), Stopped> {
        if self.fallback.is_none() {
            self.fallback = Some(system::fallback_name(&[], self.dir));
        }
        for (folder, system) in std::mem::take(&mut self.waiting) {
            self.queue(folder, system)?;
        }
        self.hand_on()
    }

    /// Hands the batch to the writer (waiting while it writes the one before).
    fn hand_on(&mut self) -> Result<(), Stopped> {
        self.reports = 0;
        let batch = std::mem::take(&mut self.batch);
        if batch.is_empty() {
            return Ok(());
        }
        self.batches.send(batch).map_err(|_| Stopped)
    }
}

/// The thread that writes the batches the reading hands on.
struct Writer<'a> {
    store: &'a Store,
    labels: &'a Labels,
    /// When the runs are imported.
    now: &'a str,
    /// Report files stored or met (by hash): a file met twice (copies
    /// under two folders) counts once.
    met: HashSet<String>,
    imported: Imported,
}

impl Writer<'_> {
    /// Writes each batch as it comes; the first that fails ends the import.
    fn run(mut self, batches: std::sync::mpsc::Receiver<Batch>) -> Result<Imported, StoreError> {
        for batch in batches {
            self.write(batch)?;
        }
        Ok(self.imported)
    }

    /// Writes the batch's folders with a new or changed report file, in one
    /// transaction. A folder with a new file is written whole, as it is now.
    fn write(&mut self, batch: Batch) -> Result<(), StoreError> {
        let hashes = batch.iter().flat_map(|(folder, _)| folder.files.iter().map(|f| f.hash.as_str()));
        let stored = self.store.known_hashes(hashes)?;
        self.met.extend(stored);
        let mut changed = Vec::with_capacity(batch.len());
        for (folder, system) in batch {
            let new = folder.files.iter().filter(|f| self.met.insert(f.hash.clone())).count();
            self.imported.skipped_files += folder.files.len() - new;
            if new > 0 {
                changed.push((folder, system));
            }
        }
        let (labels, now) = (self.labels, self.now);
        let runs: Vec<write::NewRun<'_>> =
            changed.par_iter().map(|(folder, system)| rows::new_run(folder, system.clone(), labels, now)).collect();
        let (written_runs, written) = self.store.write_runs(&runs)?;
        self.imported.runs += written_runs;
        self.imported.instances += written.new;
        self.imported.updated += written.updated;
        Ok(())
    }
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
