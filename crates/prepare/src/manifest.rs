//! The manifest of a prepared data set, `mlb-prepare.json` in its folder:
//! what was generated (set, scale, seed, mlb version) and every file with its
//! size and SHA-256. A folder without one was not prepared by mlb.

use super::scale::Scale;
use mlb_record::digest::sha256_of;
use mlb_run::linux::dir::Dir;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The manifest's file name inside a data set's folder.
pub const FILE_NAME: &str = "mlb-prepare.json";

/// One file of a prepared data set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Path relative to the data set's folder, `/`-separated.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256 of the content, lower-case hex.
    pub sha256: String,
}

/// What `mlb prepare` wrote into a data set's folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The data set (its folder name).
    pub data_set: String,
    /// `small` or `full`.
    pub scale: Scale,
    /// The seed it was generated from.
    pub seed: u64,
    /// The mlb version that generated it.
    pub mlb: String,
    /// Every file, in generation order.
    pub files: Vec<Entry>,
}

impl Manifest {
    /// Total size of the files, bytes.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }

    /// Reads the manifest in `dir` (a link in its place is not followed):
    /// `Ok(None)` when there is none.
    pub fn read(dir: &Dir) -> Result<Option<Manifest>, ManifestError> {
        let path = dir.at(FILE_NAME);
        let mut text = String::new();
        match dir.open_file(Path::new(FILE_NAME)).and_then(|mut f| f.read_to_string(&mut text)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Read { path, source }),
        };
        serde_json::from_str(&text).map(Some).map_err(|source| ManifestError::Parse { path, source })
    }

    /// The manifest as it is written into the set's folder.
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest serialises") + "\n"
    }

    /// Checks every file under `dir` against the manifest (in parallel),
    /// following no link (a link is a problem); calls `tick` once per file
    /// checked and checks no more files once `stop` is set. The problems
    /// found, one per file.
    pub fn verify(&self, dir: &Dir, tick: &(dyn Fn() + Sync), stop: &AtomicBool) -> Vec<String> {
        let mut problems: Vec<String> = self
            .files
            .par_iter()
            .filter_map(|entry| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let found = dir.open_file(Path::new(&entry.path)).and_then(sha256_of);
                tick();
                match found {
                    Err(e) => Some(format!("{}: {e}", entry.path)),
                    Ok((bytes, _)) if bytes != entry.bytes => {
                        Some(format!("{}: {bytes} bytes, the manifest says {}", entry.path, entry.bytes))
                    }
                    Ok((_, sha)) if sha != entry.sha256 => {
                        Some(format!("{}: content changed (SHA-256 differs)", entry.path))
                    }
                    Ok(_) => None,
                }
            })
            .collect();
        problems.sort();
        problems
    }
}

/// A manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a manifest.
    #[error("{path} is not a manifest of mlb prepare: {source}")]
    Parse {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}
