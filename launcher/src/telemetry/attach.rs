//! Adds the `telemetry` block to a report the worker wrote.

use super::block::Telemetry;
use crate::record::write_atomic;
use serde_json::Value;
use std::path::Path;

/// The key of the block in a report.
pub const KEY: &str = "telemetry";

/// Why the block could not be added.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    /// The report could not be read or written.
    #[error("cannot add telemetry to {}: {source}", path.display())]
    Io {
        /// The report.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The report is not a JSON object.
    #[error("cannot add telemetry to {}: it is not a JSON object", path.display())]
    NotAReport {
        /// The report.
        path: std::path::PathBuf,
    },
}

/// Rewrites the report at `path` (atomically) with `telemetry` under [`KEY`].
pub fn attach(path: &Path, telemetry: &Telemetry) -> Result<(), AttachError> {
    let io = |source| AttachError::Io { path: path.to_path_buf(), source };
    let text = std::fs::read_to_string(path).map_err(io)?;
    let Ok(Value::Object(mut report)) = serde_json::from_str::<Value>(&text) else {
        return Err(AttachError::NotAReport { path: path.to_path_buf() });
    };
    report.insert(KEY.into(), serde_json::to_value(telemetry).expect("telemetry serialises"));
    let (dir, name) = (path.parent().unwrap_or(Path::new(".")), path.file_name().unwrap_or_default());
    write_atomic(dir, &name.to_string_lossy(), &Value::Object(report)).map_err(io)?;
    Ok(())
}
