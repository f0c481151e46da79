//! `mlb prepare`: generates, into `$BASE/data` (the jobs' `$DATA_DIRECTORY`),
//! every data set the selected jobs read, in the format and layout their
//! loaders read (docs/data.md).
//!
//! Every set is checked before anything is written: a folder holding
//! something mlb did not prepare, a set prepared with another scale or
//! seed, or a set whose files changed is refused (exit 2) and never
//! overwritten. A set already prepared and intact is skipped. Then the
//! missing sets are generated, each through a partial folder renamed into
//! place when complete ([`stage`]); a full disk removes the partial set
//! (exit 1). Generation is parallel over the CPUs and gives the same bytes
//! for the same seed.

pub mod catalog;
mod error;
pub mod generate;
mod lock;
pub mod manifest;
pub mod scale;
pub mod select;
pub mod stage;

pub use catalog::DataSet;
pub use error::PrepareError;
pub use lock::FILE_NAME as LOCK_FILE;
pub use scale::Scale;

use manifest::Manifest;
use mlb_present::Progress;
use mlb_run::jobs::find_suite;
use mlb_run::linux::dir::Dir;
use mlb_run::runtime::signals;
use std::fmt;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What `mlb prepare` is asked for: which jobs' sets, where, how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The jobs file (or installed suite) whose jobs' data sets to prepare.
    pub jobs: PathBuf,
    /// Only these jobs' data sets; empty: every job's.
    pub names: Vec<String>,
    /// The base folder: the data sets go to `base/data`.
    pub base: PathBuf,
    /// The sizes of the sets.
    pub scale: Scale,
    /// The generators' seed: the same seed gives the same files.
    pub seed: u64,
    /// Wait for a benchmark run or another prepare that holds the host,
    /// instead of refusing.
    pub wait: bool,
    /// The host lock to take instead of the host's.
    pub lock: Option<PathBuf>,
}

/// What happened to one data set.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Generated now, in this time.
    Generated(Duration),
    /// Already prepared with these settings, and intact.
    Present,
}

/// One data set at the end of `mlb prepare`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The data set.
    pub set: DataSet,
    /// Its folder.
    pub path: PathBuf,
    /// What was done.
    pub action: Action,
    /// Its files.
    pub files: usize,
    /// Their size, bytes.
    pub bytes: u64,
    /// The jobs that read it.
    pub jobs: Vec<String>,
}

impl fmt::Display for Prepared {
    /// `MNIST  generated  4 files  1.1 MB  in 0.3 s (13 files/s, 3.7 MB/s)  /base/data/MNIST  (vae)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mb = self.bytes as f64 / 1e6;
        let what = match &self.action {
            Action::Present => "present  ".to_string(),
            Action::Generated(d) => {
                let s = d.as_secs_f64().max(1e-6);
                format!("generated in {s:.1} s ({:.0} files/s, {:.1} MB/s)", self.files as f64 / s, mb / s)
            }
        };
        write!(
            f,
            "{:<10} {what}  {} files  {mb:.1} MB  {}  ({})",
            self.set.folder(),
            self.files,
            self.path.display(),
            self.jobs.join(", ")
        )
    }
}

/// The end of `mlb prepare`.
#[derive(Debug)]
pub struct Outcome {
    /// The sets done (all the selected sets, unless interrupted).
    pub sets: Vec<Prepared>,
    /// Where it stopped, when a signal stopped it.
    pub interrupted: Option<Interrupted>,
}

/// Where a signal stopped `mlb prepare`.
#[derive(Debug, Clone, PartialEq)]
pub struct Interrupted {
    /// The partial folder left to resume from, when a set was being written.
    pub partial: Option<PathBuf>,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.partial {
            Some(partial) => write!(
                f,
                "interrupted: the set being written is left in {} (its complete files are kept); run the same \
                 command again to resume",
                partial.display()
            ),
            None => write!(f, "interrupted before writing anything"),
        }
    }
}

/// Prepares the data sets of the jobs `options` selects; stops early, leaving
/// what it wrote resumable, on Ctrl-C, SIGTERM, a hang-up or a user signal
/// ([`signals`]).
pub fn run(options: &Options) -> Result<Outcome, PrepareError> {
    let interrupt = signals::install().map_err(PrepareError::Signals)?;
    let file = find_suite(&options.jobs)?;
    let selected = mlb_run::jobs::select(&file, &options.names, &[])?;
    let jobs = file.jobs.iter().filter(|j| selected.contains(j.name.as_str()));
    let sets = select::data_sets(jobs);
    let data_path = options.base.join("data");
    let data_path = std::path::absolute(&data_path).unwrap_or(data_path);
    let stop = |sets, partial| Ok(Outcome { sets, interrupted: Some(Interrupted { partial }) });
    if sets.is_empty() {
        return Ok(Outcome { sets: Vec::new(), interrupted: None });
    }
    // The host first: a prepare refused for a run makes nothing.
    let Some(_held) = lock::take(&data_path, options.lock.as_deref(), options.wait, &interrupt)? else {
        return stop(Vec::new(), None);
    };
    let data = Dir::create_all(&data_path).map_err(|source| PrepareError::Write { path: data_path.clone(), source })?;
    // Every set is checked before any is written.
    let mut present = Vec::new();
    for &set in sets.keys() {
        if let Some(manifest) = check(&data, set, options, &interrupt)? {
            present.push((set, manifest));
        }
        if interrupt.load(Ordering::Relaxed) {
            return stop(Vec::new(), None);
        }
    }
    let mut out = Vec::new();
    for (set, jobs) in sets {
        let path = data.at(set.folder());
        let (action, manifest) = match present.iter().position(|(s, _)| *s == set) {
            Some(i) => (Action::Present, present.swap_remove(i).1),
            None => {
                let started = Instant::now();
                match generate(set, &data, options, &interrupt)? {
                    Generated::Complete(manifest) => (Action::Generated(started.elapsed()), manifest),
                    Generated::Interrupted(partial) => return stop(out, Some(partial)),
                }
            }
        };
        out.push(Prepared { set, path, action, files: manifest.files.len(), bytes: manifest.bytes(), jobs });
    }
    Ok(Outcome { sets: out, interrupted: None })
}

/// The manifest of `set` in `data` when it is prepared with `options`'
/// settings and intact; `None` when there is no folder. Anything else there
/// is refused. Checks no more files once `interrupt` is set.
fn check(
    data: &Dir,
    set: DataSet,
    options: &Options,
    interrupt: &AtomicBool,
) -> Result<Option<Manifest>, PrepareError> {
    let path = data.at(set.folder());
    if !path.exists() && !path.is_symlink() {
        return Ok(None);
    }
    let foreign =
        || PrepareError::Foreign { path: path.clone(), set: set.folder().into(), manifest: manifest::FILE_NAME };
    // The set's folder may be a link the user made (to another disk); nothing below it is followed.
    let Ok(dir) = Dir::open(&path) else { return Err(foreign()) };
    let Some(manifest) = Manifest::read(&dir)? else { return Err(foreign()) };
    if manifest.scale != options.scale || manifest.seed != options.seed || manifest.data_set != set.folder() {
        return Err(PrepareError::OtherSettings {
            path,
            set: set.folder().into(),
            found_scale: manifest.scale,
            found_seed: manifest.seed,
            scale: options.scale,
            seed: options.seed,
        });
    }
    let progress = Progress::on_stderr(&format!("check {}", set.folder()), Some(manifest.files.len() as u64), "files");
    let problems = manifest.verify(&dir, &|| progress.tick(), interrupt);
    progress.finish(None);
    match problems.first() {
        None => Ok(Some(manifest)),
        Some(first) => {
            Err(PrepareError::Damaged { path, set: set.folder().into(), count: problems.len(), first: first.clone() })
        }
    }
}

/// What generating a set gave.
enum Generated {
    /// The set, complete and in place.
    Complete(Manifest),
    /// Stopped by a signal; the partial folder stays.
    Interrupted(PathBuf),
}

/// Generates `set` into `data`, through its partial folder.
fn generate(set: DataSet, data: &Dir, options: &Options, interrupt: &AtomicBool) -> Result<Generated, PrepareError> {
    let generator = set.generator(options.scale, options.seed);
    let partial_path = data.at(stage::partial_name(set.folder()));
    let label = format!("generate {}", set.folder());
    let progress = Progress::on_stderr(&label, Some(generator.files().len() as u64), "files");
    let settings = format!("{} {} {}", set.folder(), options.scale, options.seed);
    let written = stage::Partial::open(data, set.folder(), &settings).and_then(|partial| {
        let files = partial.write_all(generator.as_ref(), &|bytes| progress.add_bytes(bytes), interrupt)?;
        Ok((partial, files))
    });
    progress.finish(None);
    let finished = written.and_then(|(partial, files)| {
        let manifest = Manifest {
            data_set: set.folder().into(),
            scale: options.scale,
            seed: options.seed,
            mlb: env!("CARGO_PKG_VERSION").into(),
            files,
        };
        partial.close(&manifest, data, set.folder())?;
        Ok(manifest)
    });
    finished.map(Generated::Complete).or_else(|e| {
        if e.interrupted() {
            return Ok(Generated::Interrupted(partial_path));
        }
        if !matches!(e.source.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded) {
            // Kept: the next run resumes from its complete files.
            return Err(PrepareError::Write { path: e.path, source: e.source });
        }
        let written = folder_bytes(&partial_path) / 1_000_000;
        let _ = data.remove(&stage::partial_name(set.folder()));
        Err(PrepareError::NoSpace { set: set.folder().into(), path: e.path, written, source: e.source })
    })
}

/// Bytes of the files under `dir` (links not followed).
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_bytes(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}
