//! Why an `interference.json` could not be read.

use mlb_record::fix::Fix;
use std::path::PathBuf;

/// An `interference.json` that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read (missing, not a regular file, too large).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a matrix `mlb interfere` wrote.
    #[error("{} is not a matrix of mlb interfere: {source}", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// What in it is not of the shape.
        source: serde_json::Error,
    },
}

impl Fix for ReadError {
    fn fix(&self) -> Option<String> {
        Some("run `mlb interfere --jobs FILE --outdir DIR` to write DIR/interference.json".into())
    }
}
