//! What the collecting server does with a push once its body is on disk:
//! the archive unpacked ([`super::archive::unpack`], hostile) into a folder
//! of its own, then imported as `mlb db import` imports a folder, under
//! the system the key pushes for, named `push://SYSTEM/RUN` (so that a
//! push again finds the run, and one key cannot touch another system's
//! runs), marked with the key and the embargo.

use super::archive::{self, ArchiveError, Unpacked};
use super::keys::PushKey;
use super::limits::Limits;
use crate::store::import::{import, Imported, Labels, Origin};
use crate::store::{Store, StoreError};
use std::path::Path;

/// A push admitted: by whom, for which system, which run, until when.
#[derive(Clone, Debug)]
pub struct Push {
    /// The key that pushes.
    pub key: PushKey,
    /// The system it pushes for (one of the key's).
    pub system: String,
    /// The run folder's name.
    pub run: String,
    /// Until when only the key sees the run (the store's form of a time).
    pub embargo_until: Option<String>,
}

impl Push {
    /// The name the run is stored under.
    pub fn folder(&self) -> String {
        format!("push://{}/{}", self.system, self.run)
    }
}

/// Why a push was not stored.
#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    /// Its archive was refused.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// It holds no report file.
    #[error("the push holds no report file mlb reads; push a run folder (the folder `mlb --jobs` wrote)")]
    NoReports,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Unpacks the archive `body` into the empty folder `work` within
/// `limits`, then imports it into `store` as `push` says. Nothing is
/// stored unless the whole archive unpacked; an archive of no report
/// file stores nothing.
pub fn receive(
    store: &Store,
    body: &Path,
    work: &Path,
    push: &Push,
    limits: &Limits,
) -> Result<(Unpacked, Imported), ReceiveError> {
    let file = std::fs::File::open(body).map_err(ArchiveError::Unreadable)?;
    let unpacked = archive::unpack(std::io::BufReader::new(file), work, limits)?;
    let root = work.canonicalize().map_err(ArchiveError::Unreadable)?;
    let labels = Labels {
        system: Some(push.system.clone()),
        origin: Some(Origin { root: root.clone(), name: push.folder() }),
        pushed_by: Some(push.key.id),
        embargo_until: push.embargo_until.clone(),
        ..Labels::default()
    };
    let imported = import(store, &[root], &labels, &|_| {})?;
    if imported.files == 0 {
        return Err(ReceiveError::NoReports);
    }
    Ok((unpacked, imported))
}
