//! Why an acceptance record was not written, or cannot be verified.

use super::inputs::HashError;
use super::sign::KeyError;
use super::signers::SignersError;
use mlb_record::contract::record::refused;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// Why `--record`, `--sign` or `--verify` could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// `--sign KEY`: the key cannot sign.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// `--allowed-signers FILE` cannot be read.
    #[error(transparent)]
    Signers(#[from] SignersError),
    /// `--record FILE` is inside a reports folder the evaluation reads.
    #[error("the record {} would be inside the reports folder {}, where it would be read as a report", record.display(), folder.display())]
    InsideReports {
        /// The record file.
        record: PathBuf,
        /// The folder.
        folder: PathBuf,
    },
    /// `--record FILE` names the rules file or the target table.
    #[error("the record {} would replace the input {}", record.display(), input.display())]
    OverInput {
        /// The record file.
        record: PathBuf,
        /// The input it names.
        input: PathBuf,
    },
    /// `--record FILE` is not in a folder holding every path of the
    /// request: `--verify` reads nothing outside the record's folder.
    #[error("the record {} would not be in a folder holding the input {}: --verify reads only inside the record's folder", record.display(), input.display())]
    Outside {
        /// The record file.
        record: PathBuf,
        /// The input outside its folder.
        input: PathBuf,
    },
    /// An input went away between reading and hashing.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The record or its signature cannot be written.
    #[error("cannot write the acceptance record {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--verify FILE`: the record cannot be read.
    #[error("cannot read the acceptance record {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--verify FILE`: the file is not an acceptance record mlb can read.
    #[error("{} is not an acceptance record: {reason}", path.display())]
    NotARecord {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl Classify for RecordError {
    /// A key, allowed signers, place or record that cannot be used refuses before
    /// anything is written or checked; writing fails.
    fn kind(&self) -> Kind {
        match self {
            RecordError::Key(_)
            | RecordError::Signers(_)
            | RecordError::InsideReports { .. }
            | RecordError::OverInput { .. }
            | RecordError::Outside { .. }
            | RecordError::Read { .. }
            | RecordError::NotARecord { .. } => Kind::Refused,
            RecordError::Write { source, .. } if refused(source) => Kind::Refused,
            RecordError::Hash(_) | RecordError::Write { .. } => Kind::Failed,
        }
    }
}

impl Fix for RecordError {
    fn fix(&self) -> Option<String> {
        match self {
            RecordError::Key(e) => e.fix(),
            RecordError::Signers(e) => e.fix(),
            RecordError::OverInput { .. } => Some("pass another --record FILE, e.g. acceptance.json".into()),
            RecordError::InsideReports { .. } => {
                Some("write the record beside the folder, e.g. --record acceptance.json".into())
            }
            RecordError::Outside { .. } => Some(
                "write the record in the folder that holds the reports, the rules and the target table, e.g. \
                 --record acceptance.json beside them"
                    .into(),
            ),
            RecordError::Hash(_) => Some("run mlb accept again once the run's files stay put".into()),
            RecordError::Write { .. } => Some("pass a --record FILE in a folder you can write".into()),
            RecordError::Read { .. } | RecordError::NotARecord { .. } => {
                Some("pass the acceptance.json that `mlb accept --record FILE` wrote".into())
            }
        }
    }
}
