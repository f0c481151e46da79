//! What can go wrong collecting results from many sites, with the fix.

use super::archive::ArchiveError;
use crate::store::StoreError;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// An error of `mlb db keys|share|push|pull|pushes`.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A key's or a system's name the store does not take.
    #[error("`{name}` cannot be a name here: {why}")]
    BadName {
        /// The name given.
        name: String,
        /// Why not.
        why: String,
    },
    /// `mlb db keys add` without `--system`.
    #[error("the push key `{name}` names no system it may push for")]
    NoSystems {
        /// The key's name.
        name: String,
    },
    /// `mlb db keys add` of a name taken.
    #[error("there is a push key `{name}` already")]
    KeyTaken {
        /// The name.
        name: String,
    },
    /// A key's name the store does not hold.
    #[error("no push key `{name}` in the store")]
    NoKey {
        /// The name.
        name: String,
    },
    /// `mlb db share RUN` of a run the store does not hold.
    #[error("no run {id} in the store")]
    NoRun {
        /// The id.
        id: i64,
    },
    /// `mlb db share --revoke ID` of a link the store does not hold.
    #[error("no share link {id} in the store")]
    NoShare {
        /// The id.
        id: i64,
    },
    /// The key file could not be read.
    #[error("cannot read the key file {}: {why}", path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A run folder to push is not a folder.
    #[error("{} is not a run folder (no folder there)", dir.display())]
    NoFolder {
        /// What was given.
        dir: PathBuf,
    },
    /// A run folder could not be packed.
    #[error("cannot pack the run folder {}: {source}", dir.display())]
    Pack {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A folder to unpack into could not be made.
    #[error("cannot make a folder to unpack into: {0}")]
    Spool(#[source] std::io::Error),
    /// What another server sent was refused.
    #[error("{url} sent an archive that was refused: {source}")]
    Archive {
        /// What was asked for.
        url: String,
        /// Why it was refused.
        source: ArchiveError,
    },
    /// The server could not be reached.
    #[error("cannot reach {url}: {why}")]
    Unreachable {
        /// The address.
        url: String,
        /// Why.
        why: String,
    },
    /// The server answered with an error.
    #[error("{url} answered {status}: {message}")]
    Refused {
        /// The address.
        url: String,
        /// The HTTP status.
        status: u16,
        /// What it said.
        message: String,
    },
    /// The server's answer could not be read.
    #[error("{url} answered what is not an mlb server's answer: {why}")]
    BadAnswer {
        /// The address.
        url: String,
        /// Why.
        why: String,
    },
}

impl Classify for CollectError {
    fn kind(&self) -> Kind {
        match self {
            CollectError::Store(e) => e.kind(),
            CollectError::Pack { .. } | CollectError::Spool(_) | CollectError::Unreachable { .. } => Kind::Failed,
            _ => Kind::Refused,
        }
    }
}

impl Fix for CollectError {
    fn fix(&self) -> Option<String> {
        Some(match self {
            CollectError::Store(e) => return e.fix(),
            CollectError::BadName { .. } => "pass a name of at most 200 characters, without control characters".into(),
            CollectError::NoSystems { .. } => "pass --system NAME once for each system the site may push for".into(),
            CollectError::KeyTaken { .. } => {
                "pass another name, or revoke the old key (`mlb db keys revoke NAME`) and name the new one apart".into()
            }
            CollectError::NoKey { .. } => "pass a name `mlb db keys list` shows".into(),
            CollectError::NoRun { .. } => "pass a run id `mlb db runs --embargoed` lists".into(),
            CollectError::NoShare { .. } => "pass a link id `mlb db share --list` shows".into(),
            CollectError::KeyFile { .. } => {
                "pass --key-file with the file holding the key `mlb db keys add` printed (readable only by you)".into()
            }
            CollectError::NoFolder { .. } => "pass the folder a run wrote (`mlb --jobs F --outdir DIR`)".into(),
            CollectError::Pack { .. } => "check the folder is readable, then push again".into(),
            CollectError::Spool(_) => "free space in TMPDIR (or set TMPDIR to a folder with room), then again".into(),
            CollectError::Archive { .. } => "pull from a server you trust; tell its operator what was refused".into(),
            CollectError::Unreachable { .. } => "check the URL and that the server is up, then again".into(),
            CollectError::Refused { status: 401, .. } => {
                "check the key file holds a key the server's operator made and has not revoked".into()
            }
            CollectError::Refused { status: 403, .. } => {
                "pass --system with a system your key may push for (the operator's `mlb db keys list`)".into()
            }
            CollectError::Refused { status: 429, .. } => "wait a minute, then push again".into(),
            CollectError::Refused { status: 413, .. } => {
                "push the run folders one at a time, or ask the operator for larger --push-max-* limits".into()
            }
            CollectError::Refused { .. } => return None,
            CollectError::BadAnswer { .. } => "check the URL is an mlb server's (`mlb serve`)".into(),
        })
    }
}
