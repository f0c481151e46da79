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
pub mod manifest;
mod progress;
pub mod select;
pub mod stage;

pub use catalog::{DataSet, Scale};
pub use error::PrepareError;

use crate::jobs::{find_suite, STANDARD_SUITE};
use clap::Args;
use manifest::Manifest;
use progress::Progress;
use std::fmt;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `mlb prepare` options.
#[derive(Debug, Clone, Args)]
pub struct PrepareArgs {
    /// Jobs file (or installed suite) whose jobs' data sets to prepare.
    #[arg(long, value_name = "FILE", default_value = STANDARD_SUITE)]
    pub jobs: PathBuf,

    /// Only these jobs' data sets (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub name: Vec<String>,

    /// Base folder: the data sets go to `$BASE/data` (default: the current folder).
    #[arg(long, env = "BASE", value_name = "DIR")]
    pub base: Option<PathBuf>,

    /// `full`: the original suite's sizes (tens of GB, docs/data.md); `small`: a few MB, for tests.
    #[arg(long, value_enum, default_value_t = Scale::Small)]
    pub scale: Scale,

    /// Seed of the generators: the same seed gives the same files.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
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

/// Prepares the data sets of the jobs `args` selects.
pub fn run(args: &PrepareArgs) -> Result<Vec<Prepared>, PrepareError> {
    let file = find_suite(&args.jobs)?;
    let selected = crate::jobs::select(&file, &args.name, &[])?;
    let jobs = file.jobs.iter().filter(|j| selected.contains(j.name.as_str()));
    let sets = select::data_sets(jobs);
    let base = args.base.clone().unwrap_or_else(|| PathBuf::from("."));
    let data = std::path::absolute(base.join("data")).unwrap_or_else(|_| base.join("data"));
    // Every set is checked before any is written.
    let mut present = Vec::new();
    for &set in sets.keys() {
        if let Some(manifest) = check(&data.join(set.folder()), set, args)? {
            present.push((set, manifest));
        }
    }
    let mut out = Vec::new();
    for (set, jobs) in sets {
        let path = data.join(set.folder());
        let (action, manifest) = match present.iter().position(|(s, _)| *s == set) {
            Some(i) => (Action::Present, present.swap_remove(i).1),
            None => {
                let started = Instant::now();
                let manifest = generate(set, &data, args)?;
                (Action::Generated(started.elapsed()), manifest)
            }
        };
        out.push(Prepared { set, path, action, files: manifest.files.len(), bytes: manifest.bytes(), jobs });
    }
    Ok(out)
}

/// The manifest of `set` at `path` when it is prepared with `args`'
/// settings and intact; `None` when there is no folder. Anything else there
/// is refused.
fn check(path: &Path, set: DataSet, args: &PrepareArgs) -> Result<Option<Manifest>, PrepareError> {
    if !path.exists() && !path.is_symlink() {
        return Ok(None);
    }
    let foreign =
        || PrepareError::Foreign { path: path.to_path_buf(), set: set.folder().into(), manifest: manifest::FILE_NAME };
    if !path.is_dir() {
        return Err(foreign());
    }
    let Some(manifest) = Manifest::read(path)? else { return Err(foreign()) };
    if manifest.scale != args.scale || manifest.seed != args.seed || manifest.data_set != set.folder() {
        return Err(PrepareError::OtherSettings {
            path: path.to_path_buf(),
            set: set.folder().into(),
            found_scale: manifest.scale,
            found_seed: manifest.seed,
            scale: args.scale,
            seed: args.seed,
        });
    }
    let progress = Progress::for_stderr(&format!("check {}", set.folder()), manifest.files.len());
    let problems = manifest.verify(path, &|| progress.file(0));
    progress.finish();
    match problems.first() {
        None => Ok(Some(manifest)),
        Some(first) => Err(PrepareError::Damaged {
            path: path.to_path_buf(),
            set: set.folder().into(),
            count: problems.len(),
            first: first.clone(),
        }),
    }
}

/// Generates `set` into `data`, through its partial folder.
fn generate(set: DataSet, data: &Path, args: &PrepareArgs) -> Result<Manifest, PrepareError> {
    let generator = set.generator(args.scale, args.seed);
    let partial = stage::partial(data, set.folder());
    let progress = Progress::for_stderr(&format!("generate {}", set.folder()), generator.files().len());
    let settings = format!("{} {} {}", set.folder(), args.scale, args.seed);
    let written = stage::open(&partial, &settings)
        .and_then(|()| stage::write_all(generator.as_ref(), &partial, &|bytes| progress.file(bytes)));
    progress.finish();
    let manifest = |files| Manifest {
        data_set: set.folder().into(),
        scale: args.scale,
        seed: args.seed,
        mlb: env!("CARGO_PKG_VERSION").into(),
        files,
    };
    let finished = written.map(manifest).and_then(|m| {
        m.write(&partial).map_err(|source| stage::WriteFailed { path: partial.join(manifest::FILE_NAME), source })?;
        stage::close(&partial, &data.join(set.folder()))?;
        Ok(m)
    });
    finished.map_err(|e| {
        if !matches!(e.source.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded) {
            // Kept: the next run resumes from its complete files.
            return PrepareError::Write { path: e.path, source: e.source };
        }
        let written = folder_bytes(&partial) / 1_000_000;
        let _ = std::fs::remove_dir_all(&partial);
        PrepareError::NoSpace { set: set.folder().into(), path: e.path, written, source: e.source }
    })
}

/// Bytes of the files under `dir`.
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
