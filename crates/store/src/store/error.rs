//! What can go wrong with a store, each error naming the store (its
//! password written as `***`) and the fix.

use super::location::Location;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// An error of the results store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Neither `sqlite:PATH` nor `postgres://...`.
    #[error("{url} is not a store URL")]
    BadUrl {
        /// The URL, its password written as `***`.
        url: String,
    },
    /// No `--db`, no `MLB_DB`, and neither `XDG_DATA_HOME` nor `HOME` to put
    /// the default store under.
    #[error("no store given and no home folder to keep the default one in")]
    NoHome,
    /// The folder of an SQLite store cannot be made.
    #[error("cannot make the folder {} of the store: {source}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A query named an SQLite store that does not exist.
    #[error("no store at {}", path.display())]
    Missing {
        /// The path given.
        path: PathBuf,
    },
    /// An SQLite store's path is a device, a FIFO or a folder.
    #[error("{} is not a regular file (a device, a FIFO or a folder), so it cannot be a store", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
    },
    /// An SQLite store's path is a file of something else.
    #[error("{} is not an mlb store (not an SQLite database)", path.display())]
    NotAStore {
        /// The path given.
        path: PathBuf,
    },
    /// An SQLite store's path cannot be looked at.
    #[error("cannot read the store {}: {source}", path.display())]
    File {
        /// The path given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A folder to import cannot be listed.
    #[error(transparent)]
    Reports {
        /// Which, and why.
        #[from]
        source: mlb_record::contract::read::FolderError,
    },
    /// The store cannot be opened or reached.
    #[error("cannot open the store {location}: {reason}")]
    Connect {
        /// The store.
        location: Location,
        /// Why, with any password written as `***`.
        reason: String,
    },
    /// The store was made by a newer mlb: its schema is past this one's.
    #[error(
        "the store {location} has schema version {found} (written by mlb {found_by}); \
         this mlb ({this_mlb}) knows schema versions up to {known}"
    )]
    Newer {
        /// The store.
        location: Location,
        /// Its schema version.
        found: i64,
        /// The mlb version that last migrated it, as the store says.
        found_by: String,
        /// The newest schema version this mlb knows.
        known: i64,
        /// This mlb's version.
        this_mlb: &'static str,
    },
    /// A store opened read-only (`mlb serve`) is not at this mlb's schema version.
    #[error("the store {location} has schema version {found}; this mlb reads it at version {current} only")]
    NotCurrent {
        /// The store.
        location: Location,
        /// Its schema version (0: no store there).
        found: i64,
        /// This mlb's schema version.
        current: i64,
    },
    /// The copy of an SQLite store taken before migrating it failed.
    #[error("cannot back up the store to {} before migrating it: {reason}", path.display())]
    Backup {
        /// The copy's path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Migrating the store failed (its transaction rolled back).
    #[error("cannot migrate the store {location}: {reason}")]
    Migrate {
        /// The store.
        location: Location,
        /// Why.
        reason: String,
    },
    /// The disk of the store is full: the transaction was rolled back.
    #[error("the disk of the store {location} is full; nothing of {what} was written")]
    Full {
        /// The store.
        location: Location,
        /// What was being written.
        what: String,
    },
    /// A statement failed (its transaction rolled back).
    #[error("the store {location} failed while {what}: {reason}")]
    Query {
        /// The store.
        location: Location,
        /// What was being done.
        what: String,
        /// Why, with any password written as `***`.
        reason: String,
    },
}

impl StoreError {
    /// `error` met while `what` (`"importing DIR"`) on the store at
    /// `location`: a full disk told apart from other failures, any password
    /// of the location scrubbed from the text.
    pub fn query(location: &Location, what: impl Into<String>, error: &sqlx::Error) -> StoreError {
        let what = what.into();
        if is_full(error) {
            return StoreError::Full { location: location.clone(), what };
        }
        StoreError::Query { location: location.clone(), what, reason: scrub(location, &error.to_string()) }
    }

    /// A connection error on `location`, its text scrubbed.
    pub fn connect(location: &Location, error: &sqlx::Error) -> StoreError {
        StoreError::Connect { location: location.clone(), reason: scrub(location, &error.to_string()) }
    }
}

/// Whether `error` says the disk (or the file system's quota) is full:
/// SQLite's `SQLITE_FULL` (13), PostgreSQL's `disk_full` (53100), or an
/// I/O error `ENOSPC`.
pub fn is_full(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(e) => {
            matches!(e.code().as_deref(), Some("13") | Some("53100")) || e.message().contains("disk is full")
        }
        sqlx::Error::Io(e) => e.raw_os_error() == Some(nix::libc::ENOSPC),
        _ => false,
    }
}

/// `text` with the password of `location` (in either spelling: as given,
/// or percent-decoded) written as `***`.
pub fn scrub(location: &Location, text: &str) -> String {
    let Location::Postgres(url) = location else { return text.to_string() };
    let mut out = text.replace(url.as_str(), &super::location::redact(url));
    for secret in super::location::passwords(url) {
        if !secret.is_empty() {
            out = out.replace(&secret, "***");
        }
    }
    out
}

impl Classify for StoreError {
    fn kind(&self) -> Kind {
        match self {
            StoreError::BadUrl { .. }
            | StoreError::NoHome
            | StoreError::Folder { .. }
            | StoreError::Missing { .. }
            | StoreError::NotAFile { .. }
            | StoreError::NotAStore { .. }
            | StoreError::File { .. }
            | StoreError::Reports { .. }
            | StoreError::Connect { .. }
            | StoreError::Newer { .. }
            | StoreError::NotCurrent { .. }
            | StoreError::Backup { .. }
            | StoreError::Migrate { .. } => Kind::Refused,
            StoreError::Full { .. } | StoreError::Query { .. } => Kind::Failed,
        }
    }
}

impl Fix for StoreError {
    fn fix(&self) -> Option<String> {
        Some(match self {
            StoreError::BadUrl { .. } => "pass --db sqlite:PATH or --db postgres://USER@HOST/DB".into(),
            StoreError::NoHome => "set HOME or XDG_DATA_HOME, or pass --db (or MLB_DB)".into(),
            StoreError::Folder { .. } => "pass --db with a store in a folder you can write".into(),
            StoreError::Missing { .. } => {
                "check the path in --db (or MLB_DB), or import runs into a new store first with \
                 `mlb db import DIR --db sqlite:PATH`"
                    .into()
            }
            StoreError::NotAFile { .. } | StoreError::NotAStore { .. } => {
                "pass --db with the path of an mlb store, or of a file not yet there for a new one".into()
            }
            StoreError::File { .. } => "pass --db with a store you can read".into(),
            StoreError::Reports { .. } => "pass a folder of report files you can read".into(),
            StoreError::Connect { location: Location::Postgres(_), .. } => {
                "check the server is up, the user, the password (PGPASSWORD or ~/.pgpass keeps it out of \
                 the URL) and the database in the URL"
                    .into()
            }
            StoreError::Connect { .. } => "check the file is an mlb store you can read and write".into(),
            StoreError::Newer { .. } => "use an mlb at least as new as the one that wrote the store".into(),
            StoreError::NotCurrent { found: 0, .. } => {
                "import runs into it first (`mlb db import DIR --db URL`), or pass --db with an existing store".into()
            }
            StoreError::NotCurrent { found, current, .. } if found > current => {
                "use an mlb at least as new as the one that wrote the store".into()
            }
            StoreError::NotCurrent { .. } => {
                "migrate it by opening it once to write: `mlb db runs --db URL` (as a user who may write it)".into()
            }
            StoreError::Backup { .. } => "free space beside the store, then run again".into(),
            StoreError::Migrate { .. } => "restore the backup beside the store and report the error".into(),
            StoreError::Full { .. } => "free space on the store's disk (or pass --db elsewhere), then run again".into(),
            StoreError::Query { .. } => return None,
        })
    }
}
